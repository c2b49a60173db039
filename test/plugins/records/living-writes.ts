import type { Server, ServerInjectResponse } from '@hapi/hapi';
import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';

import type { ResourceName } from '../../../models/resources';
import { livingFamily, livingMarker, type LivingFamily } from '../../helpers/living-family';
import { testServer, testVariant, type FamilyFixture } from '../../helpers/server';
import { blobExists, sampleFile, upload } from '../files/fixtures';
import { bodyOf, dataOf, expectError } from './fixtures';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

/** The resources whose records concern persons: what a redacted key's writes could uncover. */
const concerning: ResourceName[] = ['persons', 'events', 'gallery', 'documents', 'history'];

/** Stored values of the living persons of livingFamily(): no refusal may quote them. */
const livingValues = [livingMarker, '1990-07-14', 'Marrow Bay'];

describe(`writes of a redacted key that concern living persons on ${testVariant}`, () => {

    let server: Server;
    let family: LivingFamily;
    let redacted: FamilyFixture;

    /** The family's stored records of every concerning resource and its change events, as the database holds them. */
    const stored = async (familyLongId: string) => {

        const models = server.app.services.models;
        const records = await Promise.all(concerning.map((name) => models.records[name].findAll({ where: { family_long_id: familyLongId }, order: [['id', 'ASC']], raw: true })));
        return { records, changeEvents: await models.ChangeEvent.count({ where: { family_long_id: familyLongId } }) };
    };

    /** A 403 living_person_protected naming `personId` and no stored value, that changed nothing. */
    const expectProtected = async (write: () => Promise<ServerInjectResponse>, personId: string) => {

        const before = await stored(family.familyLongId);
        const response = await write();
        expectError(response, 403, 'living_person_protected', personId);
        expect(bodyOf(response).message.startsWith('This API key hides living persons\' details, so it cannot ')).to.be.true();
        for (const value of livingValues) {
            expect(response.payload).to.not.contain(value);
        }

        expect(await stored(family.familyLongId)).to.equal(before);
    };

    before(async () => {

        server = await testServer();
        family = await livingFamily(server);
        redacted = family.redacted;
    });

    after(() => server.stop());

    describe('refuses', () => {

        it('a death date for a living person', async () => {

            const { livingRecent } = family.persons;
            await expectProtected(() => redacted.inject('PATCH', `/api/v1/persons/${livingRecent}`, { death_date: '2024-01-02' }), livingRecent);
        });

        it('a change of a living person before the checks that would quote their stored birth date', async () => {

            const { livingRecent } = family.persons;
            // A full key is told "death_date: 1950 is before the birth date 1990-07-14".
            expectError(await family.full.inject('PATCH', `/api/v1/persons/${livingRecent}`, { death_date: '1950' }), 400, 'invalid_request', '1990-07-14');
            await expectProtected(() => redacted.inject('PATCH', `/api/v1/persons/${livingRecent}`, { death_date: '1950' }), livingRecent);
        });

        it('any change of a person presumed living, of known birth or not, even one of a field the key sees', async () => {

            for (const role of ['unknownBirth', 'edgeDay', 'livingChild'] as const) {
                const id = family.persons[role];
                await expectProtected(() => redacted.inject('PATCH', `/api/v1/persons/${id}`, { gender: 'other' }), id);
            }
        });

        it('the deletion of a living person', async () => {

            const { livingRecent } = family.persons;
            await expectProtected(() => redacted.inject('DELETE', `/api/v1/persons/${livingRecent}`), livingRecent);
        });

        it('a death or burial event naming a living person', async () => {

            const { livingRecent, unknownBirth } = family.persons;
            await expectProtected(() => redacted.inject('POST', '/api/v1/events', { title: 'Death', type: 'death', person_id: livingRecent }), livingRecent);
            await expectProtected(() => redacted.inject('POST', '/api/v1/events', { title: 'Burial', type: 'burial', date: '2020', person_id: unknownBirth }), unknownBirth);
        });

        it('a new person whose parent or spouse is a living person', async () => {

            const { livingRecent, unknownBirth } = family.persons;
            await expectProtected(() => redacted.inject('POST', '/api/v1/persons', { first_name: 'New', last_name: 'Person', parent_1_id: livingRecent }), livingRecent);
            await expectProtected(() => redacted.inject('POST', '/api/v1/persons', { first_name: 'New', last_name: 'Person', parent_2_id: livingRecent }), livingRecent);
            await expectProtected(() => redacted.inject('POST', '/api/v1/persons', { first_name: 'New', last_name: 'Person', spouse_id: unknownBirth }), unknownBirth);
        });

        it('linking a dead person to a living one', async () => {

            const { deadByBurialEvent, livingChild } = family.persons;
            await expectProtected(() => redacted.inject('PATCH', `/api/v1/persons/${deadByBurialEvent}`, { spouse_id: livingChild }), livingChild);
        });

        it('changes and deletions of the records of other resources that concern a living person', async () => {

            const { livingRecent } = family.persons;
            await expectProtected(() => redacted.inject('PATCH', `/api/v1/events/${family.events.ofLiving}`, { type: 'death' }), livingRecent);
            await expectProtected(() => redacted.inject('DELETE', `/api/v1/events/${family.events.ofLiving}`), livingRecent);
            await expectProtected(() => redacted.inject('PATCH', `/api/v1/history/${family.history.ofLiving}`, { title: 'Retitled' }), livingRecent);
            await expectProtected(() => redacted.inject('PATCH', `/api/v1/gallery/${family.gallery.ofLiving}`, { title: 'Retitled' }), livingRecent);
            await expectProtected(() => redacted.inject('DELETE', `/api/v1/documents/${family.documents.ofLiving}`), livingRecent);
        });

        it('a record of another resource moved onto a living person', async () => {

            const { livingRecent } = family.persons;
            await expectProtected(() => redacted.inject('PATCH', `/api/v1/events/${family.events.ofDead}`, { person_id: livingRecent }), livingRecent);
            await expectProtected(() => redacted.inject('PATCH', `/api/v1/documents/${family.documents.ofNobody}`, { person_id: livingRecent }), livingRecent);
        });

        it('a record of another resource naming a living person, uploads included, whose files it keeps none of', async () => {

            const { livingRecent } = family.persons;
            await expectProtected(() => redacted.inject('POST', '/api/v1/history', { title: 'A story', person_id: livingRecent }), livingRecent);
            const photo = sampleFile('png', 101);
            await expectProtected(() => upload(redacted, 'gallery', photo, { person_id: livingRecent }), livingRecent);
            const letter = sampleFile('pdf', 103);
            await expectProtected(() => upload(redacted, 'documents', letter, { person_id: livingRecent }), livingRecent);
            expect(blobExists(server, photo)).to.be.false();
            expect(blobExists(server, letter)).to.be.false();
        });

        it('a retried create with its Idempotency-Key as well, storing no answer to replay', async () => {

            const { livingRecent } = family.persons;
            const retry = () => redacted.inject('POST', '/api/v1/events', { title: 'Death', type: 'death', person_id: livingRecent }, { 'idempotency-key': 'living-death-1' });
            await expectProtected(retry, livingRecent);
            await expectProtected(retry, livingRecent);
        });
    });

    describe('allows', () => {

        it('a new person with no death date, answered redacted, whom it cannot change afterwards', async () => {

            const created = dataOf(await redacted.inject('POST', '/api/v1/persons', { first_name: 'Newborn', last_name: 'Quill', birth_date: '2024-02-03', gender: 'male' }), 201);
            expect(created).to.include({ first_name: 'Living', last_name: null, birth_date: null, gender: 'male', redacted: true });
            const asStored = dataOf(await family.full.inject('GET', `/api/v1/persons/${created.id}`));
            expect(asStored).to.include({ first_name: 'Newborn', last_name: 'Quill', birth_date: '2024-02-03' });
            expectError(await redacted.inject('PATCH', `/api/v1/persons/${created.id}`, { notes: 'more' }), 403, 'living_person_protected', created.id);
        });

        it('changes and links of dead persons, and records naming them', async () => {

            const { deadByDeathDate, deadByDeathEvent, yearBeforeEdge } = family.persons;
            const changed = dataOf(await redacted.inject('PATCH', `/api/v1/persons/${deadByDeathDate}`, { notes: 'Fisherman, then ferryman.' }));
            expect(changed).to.include({ notes: 'Fisherman, then ferryman.', redacted: false });

            const child = dataOf(await redacted.inject('POST', '/api/v1/persons', { first_name: 'Old', last_name: 'Marsh', death_date: '1970', parent_1_id: deadByDeathDate, parent_2_id: deadByDeathEvent }), 201);
            expect(child).to.include({ first_name: 'Old', parent_1_id: deadByDeathDate, redacted: false });

            const burial = dataOf(await redacted.inject('POST', '/api/v1/events', { title: 'Burial of Yann', type: 'burial', date: '1990', person_id: yearBeforeEdge }), 201);
            expect(burial).to.include({ title: 'Burial of Yann', redacted: false });
            expect(dataOf(await redacted.inject('PATCH', `/api/v1/events/${family.events.ofDead}`, { place: 'Old Harbour' }))).to.include({ place: 'Old Harbour' });
            expect(dataOf(await upload(redacted, 'gallery', sampleFile('png'), { person_id: deadByDeathDate }), 201)).to.include({ redacted: false });
            expect(dataOf(await redacted.inject('DELETE', `/api/v1/history/${family.history.ofDead}`))).to.equal({ id: family.history.ofDead, deleted: true });
        });

        it('records that concern nobody', async () => {

            expect(dataOf(await redacted.inject('PATCH', `/api/v1/events/${family.events.ofNobody}`, { title: 'Family reunion' }))).to.include({ title: 'Family reunion', redacted: false });
        });
    });

    it('is declared in the OpenAPI 403 of the write routes of the resources that concern persons, and only there', async () => {

        const document = bodyOf(await server.inject('/api/v1/openapi.json'));
        const codesOf = (path: string, method: string) => document.paths[path][method].responses['403'].content['application/json'].schema.allOf[1].properties.code.enum;
        for (const name of concerning) {
            expect(codesOf(`/api/v1/${name}`, 'post'), name).to.include('living_person_protected');
            expect(codesOf(`/api/v1/${name}/{id}`, 'patch'), name).to.include('living_person_protected');
            expect(codesOf(`/api/v1/${name}/{id}`, 'delete'), name).to.include('living_person_protected');
            expect(codesOf(`/api/v1/${name}/{id}`, 'get'), name).to.not.include('living_person_protected');
        }

        expect(codesOf('/api/v1/trees/{id}', 'patch')).to.not.include('living_person_protected');
    });

    it('leaves a full key every write that concerns living persons', async () => {

        const other = await livingFamily(server);
        const { full } = other;
        const { livingRecent, unknownBirth } = other.persons;
        const event = dataOf(await full.inject('PATCH', `/api/v1/events/${other.events.ofLiving}`, { place: 'Elsewhere' }));
        expect(event.place).to.equal('Elsewhere');
        expect(Object.keys(event)).to.not.include('redacted');
        dataOf(await full.inject('POST', '/api/v1/persons', { first_name: 'Kid', last_name: 'Quill', parent_1_id: livingRecent, spouse_id: unknownBirth }), 201);
        dataOf(await upload(full, 'gallery', sampleFile('png'), { person_id: livingRecent }), 201);
        dataOf(await full.inject('POST', '/api/v1/events', { title: 'Death', type: 'death', person_id: unknownBirth }), 201);
        expect(dataOf(await full.inject('PATCH', `/api/v1/persons/${livingRecent}`, { death_date: '2024-01-02' }))).to.include({ death_date: '2024-01-02', first_name: 'Livia' });
        dataOf(await full.inject('DELETE', `/api/v1/documents/${other.documents.ofLiving}`));
        dataOf(await full.inject('DELETE', `/api/v1/persons/${other.persons.livingChild}`));
    });
});
