import type { Server } from '@hapi/hapi';
import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';

import { createApiKey } from '../../../lib/accounts/api-keys';
import { resources, type ResourceName } from '../../../models/resources';
import { livingFamily, livingMarker, type LivingFamily } from '../../helpers/living-family';
import { allOperations, allResources, keyFixture, testServer, testVariant, type FamilyFixture } from '../../helpers/server';
import { sampleFile } from '../files/fixtures';
import { bodyOf, createBody, dataOf, expectError, type Body } from './fixtures';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

/** The resources whose records concern persons, and those that never do. */
const concerning: ResourceName[] = ['persons', 'events', 'gallery', 'documents', 'history'];
const unconcerned: ResourceName[] = ['trees', 'projects', 'finances'];

/** What each resource's redacted record shows in place of its stored values. */
const hidden: Record<string, Body> = {
    persons: { first_name: 'Living', last_name: null, birth_name: null, birth_date: null, birth_place: null, death_date: null, death_place: null, notes: null },
    events: { title: null, date: null, place: null, description: null },
    gallery: { title: null, description: null, taken_on: null, place: null, original_name: null, media_type: null },
    documents: { title: null, category: null, document_date: null, description: null, original_name: null, media_type: null },
    history: { title: null, period: null, occurred_on: null, place: null, body: null }
};

/** A gallery item's signed link changes with time: compared apart. */
const unsigned = ({ url: _url, url_expires_at: _expires, ...record }: Body) => record;

describe(`records of living persons for a redacted key on ${testVariant}`, () => {

    let server: Server;
    let family: LivingFamily;
    /** A key made with `living_persons: full` said explicitly; family.full is made as every key was before the option. */
    let explicitFull: FamilyFixture;
    const full: Record<string, Body[]> = {};

    const list = async (by: FamilyFixture, resource: string, query = '') => dataOf(await by.inject('GET', `/api/v1/${resource}?limit=100${query}`)) as Body[];
    /** Whether a record, as the full key sees it, concerns a person presumed living. */
    const concernsLiving = (resource: string, record: Body) => family.living.has((resource === 'persons' ? record.id : record.person_id) as string);
    /** What the redacted key must show of a record the full key shows so. */
    const expectedOf = (resource: string, record: Body): Body => (concernsLiving(resource, record) ?
        { ...unsigned(record), ...hidden[resource], redacted: true } : { ...record, redacted: false });

    before(async () => {

        server = await testServer();
        family = await livingFamily(server);
        const { key, apiKey } = await createApiKey(server.app.services.accounts, {
            familyLongId: family.familyLongId, name: 'explicitly full', resources: allResources, operations: allOperations, createdBy: 'test', livingPersons: 'full'
        });
        explicitFull = keyFixture(server, family.familyLongId, apiKey.id, key);
        for (const name of unconcerned) {
            dataOf(await family.full.inject('POST', `/api/v1/${name}`, createBody(name)), 201);
        }

        for (const name of [...concerning, ...unconcerned]) {
            full[name] = await list(family.full, name);
        }
    });

    after(() => server.stop());

    for (const name of concerning) {
        it(`lists ${name} of living persons redacted, the others in full, each marked`, async () => {

            const shown = await list(family.redacted, name);
            expect(shown.map((record) => record.id)).to.equal(full[name].map((record) => record.id));
            const redactedCount = shown.filter((record) => record.redacted === true).length;
            expect(redactedCount).to.be.above(0);
            expect(redactedCount).to.be.below(shown.length);
            for (const [index, record] of shown.entries()) {
                const expected = expectedOf(name, full[name][index]);
                expect(record.redacted ? record : unsigned(record), record.id as string).to.equal(expected.redacted ? expected : unsigned(expected));
                expect(Object.keys(record).slice(-1)[0] === 'redacted' || name === 'gallery').to.be.true();
            }

            // Nothing of a living person is left in the answer.
            const payload = (await family.redacted.inject('GET', `/api/v1/${name}?limit=100`)).payload;
            expect(payload).to.not.contain(livingMarker);
            expect(payload).to.not.contain('1990-07-14');
        });

        it(`reads one of ${name} as its list shows it to the key`, async () => {

            const shown = await list(family.redacted, name);
            for (const record of shown) {
                const response = await family.redacted.inject('GET', `/api/v1/${name}/${record.id}`);
                expect(unsigned(dataOf(response)), record.id as string).to.equal(unsigned(record));
                // The redacted view's tag is the record's revision: a 304 tells nothing the view did not.
                const again = await family.redacted.inject('GET', `/api/v1/${name}/${record.id}`, undefined, { 'if-none-match': response.headers.etag as string });
                expect(again.statusCode).to.equal(304);
                expect(again.payload).to.equal('');
            }
        });
    }

    it('links no file of a living person\'s gallery item, and links the others\'', async () => {

        for (const record of await list(family.redacted, 'gallery')) {
            expect(record.url === undefined, record.id as string).to.equal(record.redacted as boolean);
        }

        const item = dataOf(await family.redacted.inject('GET', `/api/v1/gallery/${family.gallery.ofLiving}`));
        expect(item.url).to.not.exist();
        expect(dataOf(await family.redacted.inject('GET', `/api/v1/gallery/${family.gallery.ofDead}`)).url).to.be.a.string();
    });

    for (const name of unconcerned) {
        it(`shows ${name} unchanged but for redacted: false`, async () => {

            const shown = await list(family.redacted, name);
            expect(shown).to.have.length(1);
            expect(shown).to.equal(full[name].map((record) => ({ ...record, redacted: false })));
            expect(dataOf(await family.redacted.inject('GET', `/api/v1/${name}/${shown[0].id}`))).to.equal(shown[0]);
        });
    }

    it('shows /all as the lists do', async () => {

        const all = bodyOf(await family.redacted.inject('GET', '/api/v1/all')).data as Record<string, Body[]>;
        for (const name of [...concerning, ...unconcerned]) {
            expect(all[name].map(unsigned), name).to.equal((await list(family.redacted, name)).map(unsigned));
        }

        const searched = bodyOf(await family.redacted.inject('GET', `/api/v1/all?search=${livingMarker}`)).data as Record<string, Body[]>;
        expect(Object.values(searched).flat()).to.equal([]);
    });

    it('answers a full key as before: the same bytes as a key made before the option, no redacted field', async () => {

        const paths = [
            ...[...concerning, ...unconcerned].flatMap((name) => [`/api/v1/${name}?limit=100`, `/api/v1/${name}/${full[name][0].id}`, `/api/v1/${name}?search=${livingMarker}`]),
            '/api/v1/all', '/api/v1/persons?sort=last_name&limit=3', '/api/v1/persons?format=csv'
        ];
        for (const path of paths) {
            const before = await family.full.inject('GET', path);
            const now = await explicitFull.inject('GET', path);
            expect(before.statusCode, path).to.equal(200);
            // Signed links change with time and key: everything else the same, byte for byte.
            const withoutLinks = (payload: string) => payload.replace(/"url":"[^"]*","url_expires_at":"[^"]*"/g, '');
            expect(withoutLinks(now.payload), path).to.equal(withoutLinks(before.payload));
            expect(now.payload, path).to.not.contain('"redacted"');
        }

        const persons = full.persons;
        expect(persons.find((person) => person.id === family.persons.livingRecent)).to.include({ first_name: 'Livia', last_name: livingMarker, birth_date: '1990-07-14' });
        expect(Object.keys(persons[0])).to.equal(['id', ...Object.keys(resources.persons.fields), 'revision', 'created_at', 'updated_at']);
    });

    it('answers a create, an idempotent create and its replay of a living person redacted', async () => {

        const living = { first_name: 'Neve', last_name: livingMarker, birth_date: '2001-02-03', gender: 'female' };
        const created = dataOf(await family.redacted.inject('POST', '/api/v1/persons', living), 201);
        expect(created).to.include({ ...hidden.persons, gender: 'female', redacted: true });
        expect(dataOf(await family.full.inject('GET', `/api/v1/persons/${created.id}`))).to.include(living);

        const keyed = { 'idempotency-key': 'living-create-1' };
        const first = await family.redacted.inject('POST', '/api/v1/persons', living, keyed);
        expect(dataOf(first, 201)).to.include({ ...hidden.persons, redacted: true });
        const replayed = await family.redacted.inject('POST', '/api/v1/persons', living, keyed);
        expect(replayed.headers['idempotent-replayed']).to.equal('true');
        expect(replayed.payload).to.equal(first.payload);
    });

    it('answers an update as the write left the person: one made living reads redacted', async () => {

        const dead = dataOf(await family.redacted.inject('POST', '/api/v1/persons', { first_name: 'Odile', last_name: 'Brack', birth_date: '1950', death_date: '2020-01-02' }), 201);
        expect(dead).to.include({ first_name: 'Odile', death_date: '2020-01-02', redacted: false });
        const revived = dataOf(await family.redacted.inject('PATCH', `/api/v1/persons/${dead.id}`, { death_date: null }));
        expect(revived).to.include({ ...hidden.persons, revision: 2, redacted: true });
        expect(dataOf(await family.full.inject('GET', `/api/v1/persons/${dead.id}`))).to.include({ first_name: 'Odile', birth_date: '1950', death_date: null });
    });

    it('answers an upload concerning a dead person in full, with its file link (one naming a living person is refused: living-writes.ts)', async () => {

        const upload = (person_id: string, headers = {}) => family.redacted.inject('POST', '/api/v1/gallery', {
            title: 'Beach', place: 'Marrow Bay', person_id, original_name: 'beach.png', file_base64: sampleFile('png').toString('base64')
        }, headers);
        expectError(await upload(family.persons.livingRecent), 403, 'living_person_protected', family.persons.livingRecent);

        const dead = dataOf(await upload(family.persons.deadByDeathDate, { 'idempotency-key': 'upload-1' }), 201);
        expect(dead).to.include({ title: 'Beach', place: 'Marrow Bay', redacted: false });
        expect(dead.url).to.be.a.string();
    });
});
