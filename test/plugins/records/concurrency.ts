import type { Server } from '@hapi/hapi';
import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';

import { familyWithKey, testServer, type FamilyFixture } from '../../helpers/server';
import { createBody, dataOf } from './fixtures';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

const writers = 20;

describe('records API v1: concurrent writes', () => {

    let server: Server;
    let secondInstance: Server;

    before(async () => {

        server = await testServer();
        secondInstance = await testServer({ shareWith: server });
    });

    after(async () => {

        await secondInstance.stop();
        await server.stop();
    });

    /** Sends every update at once, through the given servers in turn; expects each to succeed. */
    async function updateAtOnce(family: FamilyFixture, id: string, through: Server[]): Promise<number[]> {

        const responses = await Promise.all(Array.from({ length: writers }, (_, index) => through[index % through.length].inject({
            method: 'PATCH',
            url: `/api/v1/persons/${id}`,
            headers: { authorization: `Bearer ${family.key}` },
            payload: { notes: `writer ${index}` }
        })));

        return responses.map((response) => dataOf(response).revision);
    }

    async function expectNoLostUpdate(family: FamilyFixture, id: string, revisions: number[]): Promise<void> {

        const expected = Array.from({ length: writers }, (_, index) => index + 2);
        expect([...revisions].sort((a, b) => a - b)).to.equal(expected);
        expect(dataOf(await family.inject('GET', `/api/v1/persons/${id}`)).revision).to.equal(writers + 1);

        const events = await server.app.services.models.ChangeEvent.findAll({ where: { record_id: id, action: 'updated' } });
        expect(events.map((event) => event.revision).sort((a, b) => a - b)).to.equal(expected);
    }

    it(`applies ${writers} simultaneous updates of one record, each once (no lost update)`, async () => {

        const family = await familyWithKey(server);
        const id = dataOf(await family.inject('POST', '/api/v1/persons', createBody('persons')), 201).id;

        await expectNoLostUpdate(family, id, await updateAtOnce(family, id, [server]));
    });

    it(`applies ${writers} simultaneous updates arriving at two instances that share the database`, async () => {

        const family = await familyWithKey(server);
        const id = dataOf(await family.inject('POST', '/api/v1/persons', createBody('persons')), 201).id;

        await expectNoLostUpdate(family, id, await updateAtOnce(family, id, [server, secondInstance]));
    });

    it('settles a delete racing an update of the record: the update comes first, or finds no record', async () => {

        const family = await familyWithKey(server);
        for (let round = 0; round < 5; ++round) {
            const id = dataOf(await family.inject('POST', '/api/v1/persons', createBody('persons')), 201).id;
            const [update, removal] = await Promise.all([
                family.inject('PATCH', `/api/v1/persons/${id}`, { notes: 'late' }),
                secondInstance.inject({ method: 'DELETE', url: `/api/v1/persons/${id}`, headers: { authorization: `Bearer ${family.key}` } })
            ]);

            expect(removal.statusCode).to.equal(200);
            expect([200, 404]).to.include(update.statusCode);
            const expected = update.statusCode === 200 ? [['created', 1], ['updated', 2], ['deleted', 3]] : [['created', 1], ['deleted', 2]];
            const events = await server.app.services.models.ChangeEvent.findAll({ where: { record_id: id }, order: [['id', 'ASC']] });
            expect(events.map((event): unknown[] => [event.action, event.revision])).to.equal(expected);
        }
    });

    it(`creates ${writers} records at once, each with its own id and event`, async () => {

        const family = await familyWithKey(server);
        const responses = await Promise.all(Array.from({ length: writers }, (_, variant) => family.inject('POST', '/api/v1/trees', createBody('trees', { variant }))));
        const ids = responses.map((response) => dataOf(response, 201).id);

        expect(new Set(ids).size).to.equal(writers);
        expect(dataOf(await family.inject('GET', '/api/v1/trees?limit=100'))).to.have.length(writers);
        expect(await server.app.services.models.ChangeEvent.count({ where: { family_long_id: family.familyLongId, action: 'created' } })).to.equal(writers);
    });
});
