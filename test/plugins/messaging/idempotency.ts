import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import type { RunInTransaction } from '../../../lib/database';
import { recordId } from '../../../lib/ids';
import { bodyOf, dataOf, directConversation, expectError, messagingClient, messagingClients } from './fixtures';
import { editPolicyFile } from '../../helpers/policy-files';
import { copyPolicies, testServer } from '../../helpers/server';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('/messaging/v1 Idempotency-Key', () => {

    let server: Server;

    before(async () => {

        server = await testServer();
    });

    after(() => server.stop());

    const historyOf = async (client: Awaited<ReturnType<typeof messagingClient>>, id: string) => bodyOf(await client.call('GET', `/conversations/${id}/messages`)).data;

    it('replays a send with the same key and body (Idempotent-Replayed: true) and sends nothing more; another body is 422', async () => {

        const [anna, ben] = await messagingClients(server, 2);
        const { id } = await directConversation(anna, ben);
        const headers = { 'idempotency-key': 'send-1' };
        const first = await anna.call('POST', `/conversations/${id}/messages`, { body: 'Once' }, headers);
        const again = await anna.call('POST', `/conversations/${id}/messages`, { body: 'Once' }, headers);
        expect(again.statusCode).to.equal(201);
        expect(again.headers['idempotent-replayed']).to.equal('true');
        expect(first.headers['idempotent-replayed']).to.not.exist();
        expect(again.headers.etag).to.equal('"1"');
        expect(bodyOf(again)).to.equal(bodyOf(first));

        expectError(await anna.call('POST', `/conversations/${id}/messages`, { body: 'Twice?' }, headers), 422, 'idempotency_key_reused');
        expect(await historyOf(anna, id)).to.equal([bodyOf(first).data]);

        // The key is the device's: another device of the same user sending with it sends a message of its own.
        const otherDevice = await messagingClient(server, anna.user);
        dataOf(await otherDevice.call('POST', `/conversations/${id}/messages`, { body: 'Once' }, headers), 201);
        expect(await historyOf(anna, id)).to.have.length(2);
    });

    it('answers a retry while the first request runs with 409 conflict, then replays the first answer', async () => {

        const [anna, ben] = await messagingClients(server, 2);
        const { id } = await directConversation(anna, ben);
        const context = server.app.services.messaging;
        const transaction = context.transaction;
        let reached!: () => void;
        let release!: () => void;
        const atWrite = new Promise<void>((resolve) => {

            reached = resolve;
        });
        const released = new Promise<void>((resolve) => {

            release = resolve;
        });
        context.transaction = (async (work: Parameters<RunInTransaction>[0]) => {

            reached();
            await released;
            return transaction(work);
        }) as RunInTransaction;

        try {
            const headers = { 'idempotency-key': 'slow-send' };
            const first = anna.call('POST', `/conversations/${id}/messages`, { body: 'Slow' }, headers);
            await atWrite;
            expectError(await anna.call('POST', `/conversations/${id}/messages`, { body: 'Slow' }, headers), 409, 'conflict');
            release();
            const sent = dataOf(await first, 201);
            const replay = await anna.call('POST', `/conversations/${id}/messages`, { body: 'Slow' }, headers);
            expect(dataOf(replay, 201)).to.equal(sent);
            expect(replay.headers['idempotent-replayed']).to.equal('true');
        }
        finally {
            context.transaction = transaction;
        }

        expect(await historyOf(anna, id)).to.have.length(1);
    });

    it('keeps nothing of a request that failed: the corrected retry with the same key is carried out', async () => {

        const [anna, ben] = await messagingClients(server, 2);
        const { id } = await directConversation(anna, ben);
        const sent = dataOf(await anna.write('POST', `/conversations/${id}/messages`, { body: 'Typo' }), 201);
        const headers = { 'idempotency-key': 'edit-1' };
        expectError(await anna.call('PATCH', `/messages/${sent.id}`, { body: 'Fixed' }, headers), 428, 'precondition_required');
        const edited = await anna.call('PATCH', `/messages/${sent.id}`, { body: 'Fixed' }, { ...headers, 'if-match': '"1"' });
        expect(dataOf(edited)).to.include({ body: 'Fixed', revision: 2 });
        const replay = await anna.call('PATCH', `/messages/${sent.id}`, { body: 'Fixed' }, { ...headers, 'if-match': '"1"' });
        expect(replay.statusCode).to.equal(200);
        expect(replay.headers).to.include({ etag: '"2"', 'idempotent-replayed': 'true' });
    });

    it('replays the other writes too: a new group (201, made once), a removal (204) and a block', async () => {

        const [anna, ben, cleo] = await messagingClients(server, 3);
        const create = { kind: 'group', title: 'Once', member_ids: [ben.user.id, cleo.user.id] };
        const made = dataOf(await anna.call('POST', '/conversations', create, { 'idempotency-key': 'group-1' }), 201);
        const again = await anna.call('POST', '/conversations', create, { 'idempotency-key': 'group-1' });
        expect(dataOf(again, 201).id).to.equal(made.id);
        expect(dataOf(await anna.call('GET', '/conversations'))).to.have.length(1);

        const remove = () => anna.call('DELETE', `/conversations/${made.id}/members/${cleo.user.id}`, undefined, { 'idempotency-key': 'remove-1' });
        expect((await remove()).statusCode).to.equal(204);
        const removedAgain = await remove();
        expect(removedAgain.statusCode).to.equal(204);
        expect(removedAgain.headers['idempotent-replayed']).to.equal('true');
        expect(removedAgain.payload).to.equal('');

        const block = () => anna.call('PUT', `/blocks/${ben.user.id}`, undefined, { 'idempotency-key': 'block-1' });
        expect((await block()).statusCode).to.equal(201);
        expect((await block()).statusCode).to.equal(201);
        expectError(await anna.call('PUT', `/blocks/${cleo.user.id}`, undefined, { 'idempotency-key': 'block-1' }), 422, 'idempotency_key_reused');
    });
});

describe('the messaging idempotency keys\' clean-up', () => {

    it('deletes the keys past their 24 hours on the change log\'s cleanup_schedule, while the server runs', async () => {

        const policiesDir = copyPolicies();
        editPolicyFile(policiesDir, 'messaging.yaml', 'cleanup_schedule: "17 3 * * *"', 'cleanup_schedule: "* * * * * *"');
        const server = await testServer({ policiesDir });
        try {
            const keys = server.app.services.models.MessagingIdempotencyKey;
            const grant = recordId('dev');
            const entry = (key: string, ageMs: number) => ({ grant_id: grant, route: 'POST /x', idempotency_key: key, fingerprint: 'f', response_status: 201, response_body: '{}', created_at: new Date(Date.now() - ageMs) });
            await keys.bulkCreate([entry('old', 25 * 3600_000), entry('recent', 3600_000)]);
            await server.start();
            const deadline = Date.now() + 5000;
            while (await keys.count({ where: { grant_id: grant, idempotency_key: 'old' } }) && Date.now() < deadline) {
                await new Promise((resolve) => setTimeout(resolve, 100));
            }

            expect((await keys.findAll({ where: { grant_id: grant } })).map((key) => key.idempotency_key)).to.equal(['recent']);
        }
        finally {
            await server.stop();
        }
    });
});
