import Bcrypt from 'bcrypt';
import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { seedDemoFamily, type DemoFamily } from '../../lib/demo';
import { detectMediaType } from '../../lib/media-types';
import { storageUsed } from '../../lib/storage-quota';
import { servedDemoFiles } from '../helpers/demo-files';
import { allResources, testServer } from '../helpers/server';
import { sha256Of } from '../plugins/files/fixtures';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('seedDemoFamily()', () => {

    let server: Server;
    let demo: DemoFamily;

    before(async () => {

        server = await testServer();
        demo = await seedDemoFamily(server);
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

    it('stores a real file for every gallery item and document, served by its signed URL as stored', async () => {

        const files = await servedDemoFiles(server, demo.key, demo.family.family_long_id);
        const policies = server.app.services.policyStore.current();

        expect(files.map((file) => file.resource)).to.equal(['gallery', 'gallery', 'documents', 'documents']);
        for (const { resource, row, served } of files) {
            expect(sha256Of(served), `${resource} ${row.id}`).to.equal(row.sha256);
            expect(served.length).to.equal(row.size_bytes);
            expect(detectMediaType(policies.files, served)).to.equal(row.media_type);
            expect(row.media_type).to.equal(resource === 'gallery' ? 'image/png' : 'application/pdf');
        }
    });

    it('counts the files\' real sizes against the family\'s storage quota', async () => {

        const files = await servedDemoFiles(server, demo.key, demo.family.family_long_id);
        const sizes = files.reduce((sum, file) => sum + file.served.length, 0);

        expect(sizes).to.be.below(100 * 1024);
        expect(await storageUsed(server.app.services.models, demo.family.family_long_id)).to.equal(sizes);
    });

    it('creates a manager who can sign in with the printed password', async () => {

        const user = await server.app.services.models.User.findOne({ where: { email: demo.manager.email } });

        expect(user).to.exist();
        expect(user!.family_long_id).to.equal(demo.family.family_long_id);
        expect(user!.role).to.equal('manager');
        expect(await Bcrypt.compare(demo.manager.password, user!.password_hash)).to.be.true();
    });

    it('creates two members who can sign in, and conversations between the family\'s users, through the messaging services', async () => {

        const { models } = server.app.services;
        expect(demo.members).to.have.length(2);
        const members = [];
        for (const member of demo.members) {
            const user = await models.User.findOne({ where: { email: member.email } });
            expect(user!.family_long_id).to.equal(demo.family.family_long_id);
            expect(user!.role).to.equal('member');
            expect(await Bcrypt.compare(member.password, user!.password_hash)).to.be.true();
            members.push(user!);
        }

        const conversations = await models.Conversation.findAll({ where: { family_long_id: demo.family.family_long_id }, order: [['kind', 'ASC']] });
        expect(conversations.map((conversation) => conversation.kind)).to.equal(['direct', 'group']);
        expect(await models.ConversationMember.count({ where: { conversation_id: conversations[1].id } })).to.equal(3);
        for (const conversation of conversations) {
            expect(await models.Message.count({ where: { conversation_id: conversation.id } })).to.be.at.least(2);
        }

        // Written as every messaging write is: with its changes logged.
        expect(await models.MessagingChange.count({ where: { family_long_id: demo.family.family_long_id, kind: 'message' } })).to.equal(await models.Message.count({ where: { family_long_id: demo.family.family_long_id } }));
    });

    it('makes a new family every time', async () => {

        const second = await seedDemoFamily(server);

        expect(second.family.family_long_id).to.not.equal(demo.family.family_long_id);
        expect(second.manager.email).to.not.equal(demo.manager.email);
        expect(second.family.api_resources).to.equal(allResources);
        // The same files: the second family's records share the first's blobs.
        const [first, again] = await Promise.all([demo, second].map((family) => servedDemoFiles(server, family.key, family.family.family_long_id)));
        const digests = (files: typeof first) => files.map((file) => file.row.sha256).sort();
        expect(digests(again)).to.equal(digests(first));
    });
});
