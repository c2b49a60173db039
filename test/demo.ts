import Bcrypt from 'bcrypt';
import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { seedDemoFamily, type DemoFamily } from '../lib/demo';
import { allResources, testServer } from './helpers/server';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('seedDemoFamily()', () => {

    let server: Server;
    let demo: DemoFamily;

    before(async () => {

        server = await testServer();
        demo = await seedDemoFamily(server.app.services);
    });

    after(() => server.stop());

    const get = async (url: string) => {

        const response = await server.inject({ method: 'GET', url, headers: { authorization: `Bearer ${demo.key}` } });
        // The body as a client reads it: a list page is written as text (the records as the database wrote their JSON).
        return { statusCode: response.statusCode, result: JSON.parse(response.payload) as unknown };
    };

    it('fills every resource with records readable through the API with its key', async () => {

        for (const resource of allResources) {
            const response = await get(`/api/v1/${resource}`);
            expect(response.statusCode, resource).to.equal(200);
            expect((response.result as { meta: { count: number } }).meta.count, resource).to.be.at.least(1);
        }
    });

    it('writes a change event for every record', async () => {

        const models = server.app.services.models;
        let records = 0;
        for (const resource of allResources) {
            records += await models.records[resource as keyof typeof models.records].count({ where: { family_long_id: demo.family.family_long_id } });
        }

        expect(await models.ChangeEvent.count({ where: { family_long_id: demo.family.family_long_id, action: 'created' } })).to.equal(records);
    });

    it('has three generations of linked persons, with accented names, in one tree', async () => {

        const persons = (await get('/api/v1/persons?limit=100')).result as { data: Record<string, string>[] };
        const trees = (await get('/api/v1/trees')).result as { data: { id: string }[] };

        expect(persons.data.length).to.equal(8);
        expect(persons.data.map((person) => `${person.first_name} ${person.last_name}`)).to.include(['Zoë Müller', 'José Álvarez']);
        const birthYears = persons.data.map((person) => Number(person.birth_date.slice(0, 4)));
        expect(birthYears.filter((year) => year < 1940)).to.have.length(4);
        expect(birthYears.filter((year) => year >= 1950 && year < 1970)).to.have.length(2);
        expect(birthYears.filter((year) => year >= 1980)).to.have.length(2);
        expect(persons.data.every((person) => person.tree_id === trees.data[0].id)).to.be.true();

        const byName = new Map(persons.data.map((person) => [person.first_name, person]));
        const [zoe, klaus, maria] = ['Zoë', 'Klaus', 'María'].map((name) => byName.get(name)!);
        expect([zoe.parent_1_id, zoe.parent_2_id]).to.equal([klaus.id, maria.id]);
        expect([klaus.spouse_id, maria.spouse_id]).to.equal([maria.id, klaus.id]);

        const search = (await get(`/api/v1/persons?search=${encodeURIComponent('Zoë')}`)).result as { data: unknown[] };
        expect(search.data).to.have.length(1);
    });

    it('keeps money in integer minor units of EUR', async () => {

        const finances = (await get('/api/v1/finances')).result as { data: { amount_minor: unknown; currency: string }[] };

        expect(finances.data).to.have.length(3);
        expect(finances.data.every((entry) => Number.isInteger(entry.amount_minor) && entry.currency === 'EUR')).to.be.true();
    });

    it('gives the key every operation', async () => {

        const created = await server.inject({ method: 'POST', url: '/api/v1/projects', headers: { authorization: `Bearer ${demo.key}` }, payload: { title: 'Try the API' } });

        expect(created.statusCode).to.equal(201);
        expect((await get('/api/v1/events?sort=date&filter[type]=marriage')).statusCode).to.equal(200);
    });

    it('creates a manager who can sign in with the printed password', async () => {

        const user = await server.app.services.models.User.findOne({ where: { email: demo.manager.email } });

        expect(user).to.exist();
        expect(user!.family_long_id).to.equal(demo.family.family_long_id);
        expect(user!.role).to.equal('manager');
        expect(await Bcrypt.compare(demo.manager.password, user!.password_hash)).to.be.true();
    });

    it('makes a new family every time', async () => {

        const second = await seedDemoFamily(server.app.services);

        expect(second.family.family_long_id).to.not.equal(demo.family.family_long_id);
        expect(second.manager.email).to.not.equal(demo.manager.email);
        expect(second.family.api_resources).to.equal(allResources);
    });
});
