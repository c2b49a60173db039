import type { Server } from '@hapi/hapi';
import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';

import { expectSuccess, injectWithKey, newPerson } from '../../gateway/requests';
import { familyWithKey, testRedisUrl, testServer, type FamilyFixture } from '../../helpers/server';
import { listeningServer, openedStream, streamSuiteTitle } from './client';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe(streamSuiteTitle('delivery'), () => {

    let server: Server;

    before(async () => {

        server = await listeningServer();
    });

    after(() => server.stop());

    /** The family's change log as the stream should carry it: ids in order. */
    async function loggedIds(family: FamilyFixture): Promise<number[]> {

        const events = await server.app.services.models.ChangeEvent.findAll({ where: { family_long_id: family.familyLongId }, order: [['id', 'ASC']] });
        return events.map((event) => event.id);
    }

    it('carries concurrent writes of a family each once, in id order, exactly as the change log has them', async () => {

        const family = await familyWithKey(server);
        const stream = await openedStream(server, family);
        const writes = 25;
        const responses = await Promise.all(Array.from({ length: writes }, () => family.inject('POST', '/api/v1/persons', newPerson)));
        responses.forEach((response) => expectSuccess(response, 201));

        await stream.nextChanges(writes);
        const ids = stream.changes.map((event) => Number(event.id));
        expect(ids).to.equal(await loggedIds(family));
        stream.close();
    });

    it('reads the change log when a batch shows that an earlier one never arrived', async () => {

        const family = await familyWithKey(server);
        const stream = await openedStream(server, family);
        // Live once its first event arrives.
        expectSuccess(await family.inject('POST', '/api/v1/persons', newPerson), 201);
        await stream.nextChanges(1);

        // Written without announcing it, as when a publish to Redis failed.
        const unannounced = await server.app.services.models.ChangeEvent.create({ family_long_id: family.familyLongId, resource: 'persons', action: 'created', record_id: 'per_unannounced', revision: 1, occurred_at: new Date() });
        expectSuccess(await family.inject('POST', '/api/v1/persons', newPerson), 201);

        const [, missed] = await stream.nextChanges(3);
        expect(missed.data).to.include({ id: unannounced.id, record_id: 'per_unannounced' });
        expect(stream.changes.map((event) => Number(event.id))).to.equal(await loggedIds(family));
        stream.close();
    });

    it('announces the events of a delete, the references it cleared included, as they were logged', async () => {

        const family = await familyWithKey(server);
        const stream = await openedStream(server, family);
        const tree = JSON.parse((await family.inject('POST', '/api/v1/trees', { name: 'Tree' })).payload).data.id;
        expectSuccess(await family.inject('POST', '/api/v1/persons', { ...newPerson, tree_id: tree }), 201);
        expectSuccess(await family.inject('DELETE', `/api/v1/trees/${tree}`));

        const logged = await loggedIds(family);
        await stream.nextChanges(logged.length);
        expect(stream.changes.map((event) => Number(event.id))).to.equal(logged);
        expect(stream.changes.map((event) => event.event)).to.equal(['trees.created', 'persons.created', 'persons.updated', 'trees.deleted']);
        stream.close();
    });

    it('carries to a stream on one instance the events written through another', { skip: !testRedisUrl }, async () => {

        const other = await testServer({ shareWith: server });
        try {
            const family = await familyWithKey(server);
            const stream = await openedStream(server, family);
            const created = await injectWithKey(other, family.key, 'POST', '/api/v1/persons', newPerson);
            expectSuccess(created, 201);

            const [event] = await stream.nextChanges(1);
            expect(event.data).to.include({ record_id: JSON.parse(created.payload).data.id, family_long_id: family.familyLongId });
            stream.close();
        }
        finally {
            await other.stop();
        }
    });
});
