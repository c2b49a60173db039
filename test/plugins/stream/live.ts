import type { Server } from '@hapi/hapi';
import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';
import { EventSource } from 'eventsource';

import { dayLongRateWindows } from '../../helpers/policy-files';
import { familyWithKey, type FamilyFixture } from '../../helpers/server';
import { anotherKey, expectSuccess, injectWithKey, newPerson } from '../../gateway/requests';
import { listeningServer, RawStream, streamSuiteTitle, until } from './client';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe(streamSuiteTitle('live events'), () => {

    let server: Server;

    before(async () => {

        server = await listeningServer({ policiesDir: dayLongRateWindows() });
    });

    after(() => server.stop());

    async function createPerson(family: FamilyFixture, values: object = newPerson): Promise<string> {

        const response = await family.inject('POST', '/api/v1/persons', values);
        expectSuccess(response, 201);
        return JSON.parse(response.payload).data.id;
    }

    it('answers with the event-stream headers and a retry hint, uncompressed whatever the client accepts', async () => {

        const family = await familyWithKey(server);
        const stream = await RawStream.open(server, family.key);
        await until(() => stream.retry !== undefined, 'the retry hint');

        expect(stream.statusCode).to.equal(200);
        expect(stream.response.headers['content-type']).to.match(/^text\/event-stream(;|$)/);
        expect(stream.response.headers).to.include({ 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no' });
        expect(stream.response.headers['content-encoding']).to.not.exist();
        expect(stream.text.startsWith('retry: 3000\n\n')).to.be.true();
        stream.close();
    });

    it('sends each change as id, event <resource>.<action> and the metadata as JSON data', async () => {

        const family = await familyWithKey(server);
        const stream = await RawStream.open(server, family.key);
        await until(() => stream.retry !== undefined, 'the retry hint');

        const id = await createPerson(family);
        expectSuccess(await family.inject('PATCH', `/api/v1/persons/${id}`, { first_name: 'Augusta' }));
        expectSuccess(await family.inject('DELETE', `/api/v1/persons/${id}`));
        const [created, updated, deleted] = await stream.nextChanges(3);

        expect([created.event, updated.event, deleted.event]).to.equal(['persons.created', 'persons.updated', 'persons.deleted']);
        expect(created.data).to.equal({
            id: Number(created.id),
            resource: 'persons',
            action: 'created',
            record_id: id,
            family_long_id: family.familyLongId,
            revision: 1,
            occurred_at: created.data.occurred_at
        });
        expect(new Date(created.data.occurred_at).toISOString()).to.equal(created.data.occurred_at);
        expect([updated.data.revision, deleted.data.revision]).to.equal([2, 3]);
        expect(Number(updated.id)).to.be.above(Number(created.id));
        expect(Number(deleted.id)).to.be.above(Number(updated.id));

        // Exactly these bytes: the id, the event name, one line of JSON in DESIGN.md's field order.
        const data = JSON.stringify({ id: Number(created.id), resource: 'persons', action: 'created', record_id: id, family_long_id: family.familyLongId, revision: 1, occurred_at: created.data.occurred_at });
        expect(stream.text).to.include(`\n\nid: ${created.id}\nevent: persons.created\ndata: ${data}\n\n`);
        stream.close();
    });

    it('never carries record contents', async () => {

        const family = await familyWithKey(server);
        const stream = await RawStream.open(server, family.key);
        await until(() => stream.retry !== undefined, 'the retry hint');

        await createPerson(family, { first_name: 'Secretive', last_name: 'Contents' });
        await stream.nextChanges(1);
        expect(stream.text).to.not.include('Secretive');
        stream.close();
    });

    it('carries only its own family\'s events', async () => {

        const mine = await familyWithKey(server);
        const theirs = await familyWithKey(server);
        const stream = await RawStream.open(server, mine.key);
        await until(() => stream.retry !== undefined, 'the retry hint');

        await createPerson(theirs);
        const ownId = await createPerson(mine);
        const [first] = await stream.nextChanges(1);

        // Their event was committed first: had it been sent, it would have come first.
        expect(first.data).to.include({ record_id: ownId, family_long_id: mine.familyLongId });
        stream.close();
    });

    it('carries only the resources in the key\'s scope', async () => {

        const family = await familyWithKey(server, { keyResources: ['persons'] });
        const stream = await RawStream.open(server, family.key);
        await until(() => stream.retry !== undefined, 'the retry hint');

        // Written with another key of the same family, one that reaches trees.
        const treesKey = await anotherKey(server, family.familyLongId, { resources: ['trees', 'persons'] });
        expectSuccess(await injectWithKey(server, treesKey, 'POST', '/api/v1/trees', { name: 'Out of scope' }), 201);
        const personId = await createPerson(family);
        const [first] = await stream.nextChanges(1);

        expect(first.event).to.equal('persons.created');
        expect(first.data.record_id).to.equal(personId);
        stream.close();
    });

    it('serves a maintained EventSource client, which sends the key through its fetch', async () => {

        const family = await familyWithKey(server);
        const source = new EventSource(`http://127.0.0.1:${server.info.port}/api/v1/events/stream`, {
            fetch: (input, init) => fetch(input, { ...init, headers: { ...init?.headers, authorization: `Bearer ${family.key}` } })
        });

        try {
            const opened = new Promise((resolve, reject) => {

                source.onopen = resolve;
                source.onerror = (error) => reject(new Error(`EventSource failed: ${error.message ?? ''} ${error.code ?? ''}`));
            });
            const received = new Promise<MessageEvent>((resolve) => source.addEventListener('persons.created', resolve));
            await opened;

            const id = await createPerson(family);
            const event = await received;
            expect(JSON.parse(event.data)).to.include({ record_id: id, action: 'created', resource: 'persons' });
            expect(event.lastEventId).to.equal(String(JSON.parse(event.data).id));
        }
        finally {
            source.close();
        }
    });

    it('counts the stream once against the rate limit, however many events it carries', async () => {

        const family = await familyWithKey(server);
        const stream = await RawStream.open(server, family.key);
        const remainingAtOpen = Number(stream.response.headers['ratelimit-remaining']);
        await until(() => stream.retry !== undefined, 'the retry hint');

        const remainingAfterWrites = Number((await family.inject('POST', '/api/v1/persons', newPerson)).headers['ratelimit-remaining']);
        await createPerson(family);
        await stream.nextChanges(2);

        expect(remainingAfterWrites).to.equal(remainingAtOpen - 1);
        const { headers } = await family.inject('GET', '/api/v1/persons?limit=1');
        expect(Number(headers['ratelimit-remaining'])).to.equal(remainingAtOpen - 3);
        stream.close();
    });
});
