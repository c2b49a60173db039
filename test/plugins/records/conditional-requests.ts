import type { Server } from '@hapi/hapi';
import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';

import { familyWithKey, testServer, type FamilyFixture } from '../../helpers/server';
import { bodyOf, createBody, creatableResources, dataOf, expectError, insertRecord, uploadedResources } from './fixtures';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('records API v1: conditional requests (ETag, If-Match, If-None-Match, If-Unmodified-Since)', () => {

    let server: Server;
    let secondInstance: Server;

    before(async () => {

        server = await testServer();
        secondInstance = await testServer({ shareWith: server });
        await server.start();
        await secondInstance.start();
    });

    after(async () => {

        await secondInstance.stop();
        await server.stop();
    });

    /** A new person of the family: its id, at revision 1. */
    const newPerson = async (family: FamilyFixture): Promise<string> => dataOf(await family.inject('POST', '/api/v1/persons', createBody('persons')), 201).id;

    /** The record's change events, oldest first, as [action, revision]. */
    async function eventsOf(id: string): Promise<unknown[][]> {

        const events = await server.app.services.models.ChangeEvent.findAll({ where: { record_id: id }, order: [['id', 'ASC']] });
        return events.map((event): unknown[] => [event.action, event.revision]);
    }

    /** When the person last changed, as the database keeps it. */
    const updatedAt = async (id: string): Promise<Date> => (await server.app.services.models.records.persons.findByPk(id))!.updated_at;

    const httpDate = (milliseconds: number) => new Date(milliseconds).toUTCString();

    it('tags every record its revision: the 201 of a create, a read and the 200 of an update carry ETag "<revision>"', async () => {

        const family = await familyWithKey(server);
        for (const name of creatableResources) {
            const created = await family.inject('POST', `/api/v1/${name}`, createBody(name));
            expect(created.statusCode, created.payload).to.equal(201);
            expect(created.headers.etag, name).to.equal('"1"');

            const { id } = bodyOf(created).data;
            expect((await family.inject('GET', `/api/v1/${name}/${id}`)).headers.etag, name).to.equal('"1"');
            const updated = await family.inject('PATCH', `/api/v1/${name}/${id}`, createBody(name, { variant: 1 }));
            expect(updated.headers.etag, name).to.equal(`"${dataOf(updated).revision}"`);
            expect(updated.headers.etag, name).to.equal('"2"');
        }

        for (const name of uploadedResources) {
            const id = await insertRecord(server, family.familyLongId, name);
            expect((await family.inject('GET', `/api/v1/${name}/${id}`)).headers.etag, name).to.equal('"1"');
        }
    });

    it('loses no update: of two clients that read revision 1, the second one\'s If-Match "1" is a 412 and changes nothing', async () => {

        const family = await familyWithKey(server);
        const id = await newPerson(family);
        const [first, second] = [await family.inject('GET', `/api/v1/persons/${id}`), await family.inject('GET', `/api/v1/persons/${id}`)];
        expect(first.headers.etag).to.equal('"1"');
        expect(second.headers.etag).to.equal('"1"');

        const applied = await family.inject('PATCH', `/api/v1/persons/${id}`, { notes: 'From the laptop.' }, { 'if-match': first.headers.etag as string });
        expect(dataOf(applied)).to.include({ notes: 'From the laptop.', revision: 2 });
        expect(applied.headers.etag).to.equal('"2"');

        const refused = await family.inject('PATCH', `/api/v1/persons/${id}`, { notes: 'From the phone.' }, { 'if-match': second.headers.etag as string });
        expectError(refused, 412, 'precondition_failed', `the person ${id} is at revision 2 now. Read it again and reapply your change.`);
        expect(bodyOf(refused).message as string).to.startWith('If-Match does not name the current ETag, "2"');

        const current = await family.inject('GET', `/api/v1/persons/${id}`);
        expect(dataOf(current)).to.include({ notes: 'From the laptop.', revision: 2 });
        expect(current.headers.etag).to.equal('"2"');
        expect(await eventsOf(id)).to.equal([['created', 1], ['updated', 2]]);
    });

    it('takes If-Match: * and a list of entity tags that names the current one', async () => {

        const family = await familyWithKey(server);
        const id = await newPerson(family);

        expect(dataOf(await family.inject('PATCH', `/api/v1/persons/${id}`, { notes: 'a' }, { 'if-match': '*' })).revision).to.equal(2);
        expect(dataOf(await family.inject('PATCH', `/api/v1/persons/${id}`, { notes: 'b' }, { 'if-match': '"7", "2"' })).revision).to.equal(3);
        expect(dataOf(await family.inject('PATCH', `/api/v1/persons/${id}`, { notes: 'c' }, { 'if-match': ' "3" ,, "a,b"' })).revision).to.equal(4);
        expectError(await family.inject('PATCH', `/api/v1/persons/${id}`, { notes: 'd' }, { 'if-match': '"1", "2", "3"' }), 412, 'precondition_failed', 'revision 4 now');
        expect(await eventsOf(id)).to.equal([['created', 1], ['updated', 2], ['updated', 3], ['updated', 4]]);
    });

    it('compares strongly: a weak tag never matches, not even of the current revision (RFC 9110 §13.1.1)', async () => {

        const family = await familyWithKey(server);
        const id = await newPerson(family);

        expectError(await family.inject('PATCH', `/api/v1/persons/${id}`, { notes: 'x' }, { 'if-match': 'W/"1"' }), 412, 'precondition_failed');
        expectError(await family.inject('DELETE', `/api/v1/persons/${id}`, undefined, { 'if-match': 'W/"1"' }), 412, 'precondition_failed');
        expect(await eventsOf(id)).to.equal([['created', 1]]);
    });

    it('refuses an If-Match that is neither * nor entity tags with 400 invalid_request naming the header', async () => {

        const family = await familyWithKey(server);
        const id = await newPerson(family);

        for (const value of ['1', '"1" "2"', '*, "1"', 'W/1', '"1', '', ',']) {
            expectError(await family.inject('PATCH', `/api/v1/persons/${id}`, { notes: 'x' }, { 'if-match': value }), 400, 'invalid_request', 'If-Match must be * or one or more entity tags');
            expectError(await family.inject('DELETE', `/api/v1/persons/${id}`, undefined, { 'if-match': value }), 400, 'invalid_request', 'If-Match');
        }

        expect(await eventsOf(id)).to.equal([['created', 1]]);
    });

    it('deletes only the revision If-Match names: a stale tag is a 412 and deletes nothing, the current one deletes', async () => {

        const family = await familyWithKey(server);
        const id = await newPerson(family);
        dataOf(await family.inject('PATCH', `/api/v1/persons/${id}`, { notes: 'changed' }));

        expectError(await family.inject('DELETE', `/api/v1/persons/${id}`, undefined, { 'if-match': '"1"' }), 412, 'precondition_failed', 'revision 2 now');
        expect(dataOf(await family.inject('GET', `/api/v1/persons/${id}`)).revision).to.equal(2);
        expect(await eventsOf(id)).to.equal([['created', 1], ['updated', 2]]);

        expect(bodyOf(await family.inject('DELETE', `/api/v1/persons/${id}`, undefined, { 'if-match': '"2"' }))).to.equal({ data: { id, deleted: true } });
        expectError(await family.inject('GET', `/api/v1/persons/${id}`), 404, 'not_found');
        expect(await eventsOf(id)).to.equal([['created', 1], ['updated', 2], ['deleted', 3]]);
    });

    it('answers If-None-Match naming the current ETag, weakly too (W/"2"), or *, with 304 and the ETag; a stale or malformed one with the record', async () => {

        const family = await familyWithKey(server);
        const id = await newPerson(family);
        dataOf(await family.inject('PATCH', `/api/v1/persons/${id}`, { notes: 'changed' }));

        for (const value of ['"2"', '"1", "2"', '*', 'W/"2"', '"1", W/"2"']) {
            const unchanged = await family.inject('GET', `/api/v1/persons/${id}`, undefined, { 'if-none-match': value });
            expect(unchanged.statusCode, value).to.equal(304);
            expect(unchanged.payload).to.equal('');
            expect(unchanged.headers.etag).to.equal('"2"');
        }

        for (const value of ['"1"', 'W/"1"', '2', '"2']) {
            const stale = await family.inject('GET', `/api/v1/persons/${id}`, undefined, { 'if-none-match': value });
            expect(dataOf(stale).revision, value).to.equal(2);
            expect(stale.headers.etag).to.equal('"2"');
        }

        expectError(await family.inject('GET', '/api/v1/persons/per_00000000000000000000', undefined, { 'if-none-match': '*' }), 404, 'not_found');
    });

    it('answers If-Unmodified-Since (without If-Match): 412 when the record changed after the date, ignored when it is no date', async () => {

        const family = await familyWithKey(server);
        const id = await newPerson(family);
        const changedAt = (await updatedAt(id)).getTime();

        const refused = await family.inject('PATCH', `/api/v1/persons/${id}`, { notes: 'x' }, { 'if-unmodified-since': httpDate(changedAt - 1000) });
        expectError(refused, 412, 'precondition_failed', 'revision 1 now');
        expect(bodyOf(refused).message as string).to.startWith(`If-Unmodified-Since is before the last change, ${httpDate(changedAt)}`);
        expectError(await family.inject('DELETE', `/api/v1/persons/${id}`, undefined, { 'if-unmodified-since': httpDate(changedAt - 60_000) }), 412, 'precondition_failed');
        expect(await eventsOf(id)).to.equal([['created', 1]]);

        // An HTTP date has whole seconds: the second of the change itself is not before it.
        expect(dataOf(await family.inject('PATCH', `/api/v1/persons/${id}`, { notes: 'a' }, { 'if-unmodified-since': httpDate(changedAt) })).revision).to.equal(2);
        expect(dataOf(await family.inject('PATCH', `/api/v1/persons/${id}`, { notes: 'b' }, { 'if-unmodified-since': httpDate(Date.now() + 60_000) })).revision).to.equal(3);
        expect(dataOf(await family.inject('PATCH', `/api/v1/persons/${id}`, { notes: 'c' }, { 'if-unmodified-since': 'yesterday-ish' })).revision).to.equal(4);
        // If-Match decides when both are sent (RFC 9110 §13.2.2).
        expect(dataOf(await family.inject('PATCH', `/api/v1/persons/${id}`, { notes: 'd' }, { 'if-match': '"4"', 'if-unmodified-since': httpDate(0) })).revision).to.equal(5);
        expectError(await family.inject('PATCH', `/api/v1/persons/${id}`, { notes: 'e' }, { 'if-match': '"4"', 'if-unmodified-since': httpDate(Date.now() + 60_000) }), 412, 'precondition_failed');

        expect(bodyOf(await family.inject('DELETE', `/api/v1/persons/${id}`, undefined, { 'if-unmodified-since': httpDate(Date.now() + 60_000) }))).to.equal({ data: { id, deleted: true } });
    });

    it('answers a record of another family with 404 whatever If-Match says, never 412', async () => {

        const owner = await familyWithKey(server);
        const stranger = await familyWithKey(server);
        const id = await newPerson(owner);

        for (const value of ['"1"', '"9"', '*']) {
            expectError(await stranger.inject('PATCH', `/api/v1/persons/${id}`, { notes: 'x' }, { 'if-match': value }), 404, 'not_found', id);
            expectError(await stranger.inject('DELETE', `/api/v1/persons/${id}`, undefined, { 'if-match': value }), 404, 'not_found', id);
        }

        expectError(await stranger.inject('GET', `/api/v1/persons/${id}`, undefined, { 'if-none-match': '*' }), 404, 'not_found', id);
        expect(await eventsOf(id)).to.equal([['created', 1]]);
    });

    it('lets exactly one of two PATCHes sent at once over HTTP with the same If-Match through, also at two instances', async () => {

        const family = await familyWithKey(server);
        for (let round = 0; round < 6; ++round) {
            const id = await newPerson(family);
            const through = round % 2 === 0 ? [server, server] : [server, secondInstance];
            const responses = await Promise.all(through.map((instance, writer) => fetch(`${instance.info.uri}/api/v1/persons/${id}`, {
                method: 'PATCH',
                headers: { authorization: `Bearer ${family.key}`, 'content-type': 'application/json', 'if-match': '"1"' },
                body: JSON.stringify({ notes: `writer ${writer}` })
            })));

            expect(responses.map((response) => response.status).sort(), `round ${round}`).to.equal([200, 412]);
            const [winner, loser] = responses[0].status === 200 ? responses : [...responses].reverse();
            expect(winner.headers.get('etag')).to.equal('"2"');
            expect(((await loser.json()) as { code: string }).code).to.equal('precondition_failed');
            const applied = ((await winner.json()) as { data: { notes: string } }).data.notes;
            expect(dataOf(await family.inject('GET', `/api/v1/persons/${id}`))).to.include({ notes: applied, revision: 2 });
            expect(await eventsOf(id)).to.equal([['created', 1], ['updated', 2]]);
        }
    });

    it('keeps ETag "<revision>" on a compressed answer: it names the revision, not the bytes', async () => {

        const family = await familyWithKey(server);
        const id = await newPerson(family);
        dataOf(await family.inject('PATCH', `/api/v1/persons/${id}`, { notes: 'long '.repeat(1000) }));

        const compressed = await family.inject('GET', `/api/v1/persons/${id}`, undefined, { 'accept-encoding': 'gzip' });
        expect(compressed.headers['content-encoding']).to.equal('gzip');
        expect(compressed.headers.etag).to.equal('"2"');
        expect((await family.inject('GET', `/api/v1/persons/${id}`, undefined, { 'accept-encoding': 'gzip', 'if-none-match': '"2"' })).statusCode).to.equal(304);
        expect((await family.inject('PATCH', `/api/v1/persons/${id}`, { notes: 'short' }, { 'accept-encoding': 'gzip', 'if-match': '"2"' })).headers.etag).to.equal('"3"');
    });
});
