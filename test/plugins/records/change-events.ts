import type { Server, ServerInjectResponse } from '@hapi/hapi';
import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';

import { resourceNames, resources, type ResourceName } from '../../../models/resources';
import { keptLog } from '../../helpers/kept-log';
import { familyWithKey, testServer, type FamilyFixture } from '../../helpers/server';
import { bodyOf, createBody, dataOf, expectError, insertRecord, type Body } from './fixtures';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('records API v1: change events', () => {

    let server: Server;
    // The change-log faults injected below make 500s, each logged: kept, and checked by expectInternalError().
    const serverLog = keptLog([/^\[request,error\] \S+ \S+ \S+: Error: injected fault: change log unavailable\n/]);

    before(async () => {

        server = await testServer({ log: serverLog.log });
    });

    after(() => server.stop());

    /** The change log of one record, oldest first, as the stream and webhooks will read it. */
    async function eventsOf(recordId: string): Promise<Body[]> {

        const events = await server.app.services.models.ChangeEvent.findAll({ where: { record_id: recordId }, order: [['id', 'ASC']] });
        return events.map((event) => ({ resource: event.resource, action: event.action, record_id: event.record_id,
            family_long_id: event.family_long_id, revision: event.revision }));
    }

    const event = (family: FamilyFixture, resource: ResourceName, action: string, recordId: string, revision: number) => {

        return { resource, action, record_id: recordId, family_long_id: family.familyLongId, revision };
    };

    /** Creates through the API where there is a POST, else as uploads will. */
    async function createdRecord(family: FamilyFixture, name: ResourceName, values: Body = createBody(name)): Promise<string> {

        return resources[name].creatable ?
            dataOf(await family.inject('POST', `/api/v1/${name}`, values), 201).id :
            insertRecord(server, family.familyLongId, name, values);
    }

    /**
     * Makes a change-log write fail inside its transaction, as a database fault would
     * after the record itself was written: the first one, or the one after `succeeding`
     * writes. Restores the model afterwards.
     */
    async function withFailingChangeLog<T>(work: () => Promise<T>, succeeding = 0): Promise<T> {

        const changeEvents = server.app.services.models.ChangeEvent;
        const create = changeEvents.create;
        let writes = 0;
        changeEvents.create = ((...args: unknown[]) => {

            if (writes++ < succeeding) {
                return (create as (...values: unknown[]) => unknown).apply(changeEvents, args);
            }

            changeEvents.create = create;
            return Promise.reject(new Error('injected fault: change log unavailable'));
        }) as typeof create;

        try {
            return await work();
        }
        finally {
            changeEvents.create = create;
        }
    }

    const expectInternalError = (response: ServerInjectResponse) => {

        expect(response.statusCode).to.equal(500);
        expect(bodyOf(response)).to.equal({ statusCode: 500, error: 'Internal Server Error', message: `An internal server error occurred. Quote request id ${response.headers['x-request-id']} when reporting it.`, code: 'internal_error' });
        expect(response.payload).to.not.contain('injected fault');
        expect(serverLog.lines.filter((line) => line.startsWith(`[request,error] ${response.headers['x-request-id']} `))).to.have.length(1);
    };

    for (const name of resourceNames) {

        it(`writes one event for each create, update and delete of ${name}`, async () => {

            const family = await familyWithKey(server);
            const id = await createdRecord(family, name);
            expect(await eventsOf(id)).to.equal([event(family, name, 'created', id, 1)]);

            expect(dataOf(await family.inject('PATCH', `/api/v1/${name}/${id}`, createBody(name, { variant: 1, requiredOnly: true }))).revision).to.equal(2);
            expect(await eventsOf(id)).to.equal([event(family, name, 'created', id, 1), event(family, name, 'updated', id, 2)]);

            expect((await family.inject('DELETE', `/api/v1/${name}/${id}`)).statusCode).to.equal(200);
            expect(await eventsOf(id)).to.equal([event(family, name, 'created', id, 1), event(family, name, 'updated', id, 2), event(family, name, 'deleted', id, 3)]);
        });
    }

    it('writes no event for a refused write', async () => {

        const family = await familyWithKey(server);
        const id = await createdRecord(family, 'persons');
        const before = await server.app.services.models.ChangeEvent.count({ where: { family_long_id: family.familyLongId } });

        expectError(await family.inject('POST', '/api/v1/persons', { first_name: 'No last name' }), 400, 'invalid_request');
        expectError(await family.inject('POST', '/api/v1/persons', { ...createBody('persons'), tree_id: 'tre_AAAAAAAAAAAAAAAAAAAA' }), 400, 'invalid_request');
        expectError(await family.inject('PATCH', `/api/v1/persons/${id}`, { tree_id: 'tre_AAAAAAAAAAAAAAAAAAAA' }), 400, 'invalid_request');
        expectError(await family.inject('PATCH', '/api/v1/persons/per_AAAAAAAAAAAAAAAAAAAA', { first_name: 'Nobody' }), 404, 'not_found');
        expectError(await family.inject('DELETE', '/api/v1/persons/per_AAAAAAAAAAAAAAAAAAAA'), 404, 'not_found');

        expect(await server.app.services.models.ChangeEvent.count({ where: { family_long_id: family.familyLongId } })).to.equal(before);
    });

    it('clears the references to a deleted tree, with an updated event for each person', async () => {

        const family = await familyWithKey(server);
        const tree = await createdRecord(family, 'trees');
        const members = [
            await createdRecord(family, 'persons', { ...createBody('persons'), tree_id: tree }),
            await createdRecord(family, 'persons', { ...createBody('persons', { variant: 1 }), tree_id: tree })
        ];
        const outsider = await createdRecord(family, 'persons');

        expect((await family.inject('DELETE', `/api/v1/trees/${tree}`)).statusCode).to.equal(200);

        for (const member of members) {
            expect(dataOf(await family.inject('GET', `/api/v1/persons/${member}`))).to.include({ tree_id: null, revision: 2 });
            expect(await eventsOf(member)).to.equal([event(family, 'persons', 'created', member, 1), event(family, 'persons', 'updated', member, 2)]);
        }

        expect(dataOf(await family.inject('GET', `/api/v1/persons/${outsider}`)).revision).to.equal(1);
        expect(await eventsOf(outsider)).to.have.length(1);
        expect((await eventsOf(tree)).map((change) => change.action)).to.equal(['created', 'deleted']);
    });

    it('clears every reference to a deleted person, whichever resource and field holds it', async () => {

        const family = await familyWithKey(server);
        const person = await createdRecord(family, 'persons');
        const referring = resourceNames.flatMap((name) => Object.entries(resources[name].fields)
            .filter(([, field]) => field.references === 'persons')
            .map(([field]) => ({ name, field })));
        expect(referring.map(({ name }) => name)).to.include(['gallery', 'events', 'documents', 'history']);

        const ids: string[] = [];
        for (const { name, field } of referring) {
            ids.push(await createdRecord(family, name, { ...createBody(name), [field]: person }));
        }

        expect((await family.inject('DELETE', `/api/v1/persons/${person}`)).statusCode).to.equal(200);
        for (const [index, { name, field }] of referring.entries()) {
            expect(dataOf(await family.inject('GET', `/api/v1/${name}/${ids[index]}`))).to.include({ [field]: null, revision: 2 });
            expect((await eventsOf(ids[index])).map((change) => [change.resource, change.action, change.revision])).to.equal([[name, 'created', 1], [name, 'updated', 2]]);
        }
    });

    it('clears a record\'s several references to a deleted person in one update, with one event', async () => {

        const family = await familyWithKey(server);
        const person = await createdRecord(family, 'persons');
        const linked = await createdRecord(family, 'persons', { ...createBody('persons'), parent_1_id: person });
        // A parent who is also the spouse is refused now (person-links.ts), but may have been stored before.
        await server.app.services.models.records.persons.update({ spouse_id: person }, { where: { id: linked } });

        expect((await family.inject('DELETE', `/api/v1/persons/${person}`)).statusCode).to.equal(200);

        expect(dataOf(await family.inject('GET', `/api/v1/persons/${linked}`))).to.include({ parent_1_id: null, spouse_id: null, revision: 2 });
        expect(await eventsOf(linked)).to.equal([event(family, 'persons', 'created', linked, 1), event(family, 'persons', 'updated', linked, 2)]);
    });

    describe('in the same transaction as the change', () => {

        it('keeps no created record when its event cannot be written', async () => {

            const family = await familyWithKey(server);
            expectInternalError(await withFailingChangeLog(() => family.inject('POST', '/api/v1/persons', createBody('persons'))));

            expect(dataOf(await family.inject('GET', '/api/v1/persons'))).to.equal([]);
            expect(await server.app.services.models.ChangeEvent.count({ where: { family_long_id: family.familyLongId } })).to.equal(0);
            expect(dataOf(await family.inject('POST', '/api/v1/persons', createBody('persons')), 201).revision).to.equal(1);
        });

        it('keeps the record as it was when the event of an update cannot be written', async () => {

            const family = await familyWithKey(server);
            const id = await createdRecord(family, 'persons');
            const before = dataOf(await family.inject('GET', `/api/v1/persons/${id}`));

            expectInternalError(await withFailingChangeLog(() => family.inject('PATCH', `/api/v1/persons/${id}`, { first_name: 'Half written' })));

            expect(dataOf(await family.inject('GET', `/api/v1/persons/${id}`))).to.equal(before);
            expect(await eventsOf(id)).to.have.length(1);
        });

        it('keeps the record and the references to it when the event of a delete cannot be written', async () => {

            const family = await familyWithKey(server);
            const tree = await createdRecord(family, 'trees');
            const member = await createdRecord(family, 'persons', { ...createBody('persons'), tree_id: tree });
            const memberBefore = dataOf(await family.inject('GET', `/api/v1/persons/${member}`));

            // The delete first clears the member's reference (its event is the first write), then logs its own event.
            for (const succeeding of [0, 1]) {
                expectInternalError(await withFailingChangeLog(() => family.inject('DELETE', `/api/v1/trees/${tree}`), succeeding));

                expect(dataOf(await family.inject('GET', `/api/v1/trees/${tree}`)).revision).to.equal(1);
                expect(dataOf(await family.inject('GET', `/api/v1/persons/${member}`))).to.equal(memberBefore);
                expect(await eventsOf(member)).to.have.length(1);
                expect(await eventsOf(tree)).to.have.length(1);
            }
        });
    });
});
