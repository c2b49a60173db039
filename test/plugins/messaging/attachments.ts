import Fs from 'fs';
import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { storageUsed } from '../../../lib/storage-quota';
import { testServer, testVariant } from '../../helpers/server';
import { tusRequest, uploadIdOf, uploadMetadata } from '../../helpers/uploads';
import { sampleFile } from '../files/fixtures';
import { dataOf, directConversation, expectError, messagingClients, type MessagingClient } from './fixtures';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe(`messages with attachments, and sends shared with the outbox (${testVariant})`, () => {

    let server: Server;

    before(async () => {

        server = await testServer();
    });

    after(() => server.stop());

    const hasBytes = (id: string) => Fs.existsSync(Path.join(server.app.services.config.filesDir, 'uploads', id));

    /** A finished upload of `client`'s (one creation-with-upload). */
    async function uploaded(client: MessagingClient, file: Buffer, name = 'photo.png'): Promise<string> {

        const response = await tusRequest(server, client.token, 'POST', '/messaging/v1/uploads', {
            'upload-length': String(file.length), 'upload-metadata': uploadMetadata(name, 'image/png'), 'content-type': 'application/offset+octet-stream'
        }, file);
        expect(response.statusCode, JSON.stringify(response.result)).to.equal(201);
        return uploadIdOf(response.headers.location as string);
    }

    it('sends a message carrying uploads, refuses them a second time or someone else\'s, and frees them when it is deleted', async () => {

        const [ann, ben] = await messagingClients(server, 2);
        const { id: conversation } = await directConversation(ann, ben);
        const file = sampleFile('png', 3000);
        const photo = await uploaded(ann, file);
        const theirs = await uploaded(ben, sampleFile('png', 1000));
        const before = await storageUsed(server.app.services.models, ann.user.family_long_id!);

        const sent = dataOf(await ann.write('POST', `/conversations/${conversation}/messages`, { upload_ids: [photo] }), 201);
        expect(sent).to.include({ body: null, attachments: [{ upload_id: photo, file_name: 'photo.png', media_type: 'image/png', size_bytes: 3000 }] });
        expect(dataOf(await ben.call('GET', `/messages/${sent.id}`)).attachments).to.have.length(1);
        const download = await ben.call('GET', `/messages/${sent.id}/attachments/${photo}`);
        expect(download.statusCode).to.equal(200);
        expect(download.rawPayload.equals(file)).to.be.true();
        expect(download.headers).to.include({ 'content-type': 'image/png', 'content-disposition': 'attachment; filename="photo.png"; filename*=UTF-8\'\'photo.png', 'x-content-type-options': 'nosniff' });
        const [stranger] = await messagingClients(server, 1);
        expectError(await stranger.call('GET', `/messages/${sent.id}/attachments/${photo}`), 404, 'not_found');
        expectError(await ben.call('GET', `/messages/${sent.id}/attachments/${theirs}`), 404, 'not_found');

        expectError(await ann.write('POST', `/conversations/${conversation}/messages`, { body: 'again', upload_ids: [photo] }), 409, 'conflict');
        expectError(await ann.write('POST', `/conversations/${conversation}/messages`, { body: 'not mine', upload_ids: [theirs] }), 404, 'not_found');
        expectError(await ann.write('POST', `/conversations/${conversation}/messages`, {}), 400, 'invalid_request');
        expectError(await ann.write('POST', `/conversations/${conversation}/messages`, { upload_ids: ['upl_nonsense'] }), 400, 'invalid_request');

        const deleted = dataOf(await ann.call('DELETE', `/messages/${sent.id}`, undefined, { 'if-match': '"1"', 'idempotency-key': 'delete-1' }));
        expect(deleted).to.include({ deleted: true, attachments: [] });
        expect(await server.app.services.models.MessagingUpload.count({ where: { id: photo } })).to.equal(0);
        expect(await storageUsed(server.app.services.models, ann.user.family_long_id!)).to.equal(before - 3000);
        expectError(await ben.call('GET', `/messages/${sent.id}/attachments/${photo}`), 404, 'not_found');
        await expect(new Promise<void>((resolve, reject) => {

            // The bytes go once the delete's transaction has committed.
            const poll = () => (hasBytes(photo) ? setImmediate(poll) : resolve());
            setTimeout(() => reject(new Error('the bytes stayed')), 5000).unref();
            poll();
        })).to.not.reject();
    });

    it('answers an outbox item and an online send with the same Idempotency-Key as one message, either way round', async () => {

        const [ann, ben] = await messagingClients(server, 2);
        const { id: conversation } = await directConversation(ann, ben);
        const online = dataOf(await ann.call('POST', `/conversations/${conversation}/messages`, { body: 'Sent online first' }, { 'idempotency-key': 'shared-1' }), 201);
        const flush = await ann.call('POST', '/outbox', { items: [
            { idempotency_key: 'shared-1', conversation_id: conversation, client_time: new Date().toISOString(), body: 'Sent online first' },
            { idempotency_key: 'shared-2', conversation_id: conversation, client_time: new Date().toISOString(), body: 'Flushed first' }
        ] });
        const outcomes = dataOf(flush);
        expect(outcomes.map((outcome: { outcome: string }) => outcome.outcome)).to.equal(['duplicate', 'sent']);
        expect(outcomes[0].message.id).to.equal(online.id);

        const replay = await ann.call('POST', `/conversations/${conversation}/messages`, { body: 'Flushed first' }, { 'idempotency-key': 'shared-2' });
        expect(replay.headers['idempotent-replayed']).to.equal('true');
        expect(dataOf(replay, 201).id).to.equal(outcomes[1].message.id);
        expect(dataOf(await ben.call('GET', `/conversations/${conversation}/messages`))).to.have.length(2);
    });
});
