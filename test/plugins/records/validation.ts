import type { Server } from '@hapi/hapi';
import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';

import { fieldNamesWhere, isWritable, resourceNames, resources, type ResourceName } from '../../../models/resources';
import { familyWithKey, testServer, type FamilyFixture } from '../../helpers/server';
import { bodyOf, createBody, creatableResources, dataOf, expectError, insertRecord, uploadedResources } from './fixtures';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

const json = { 'content-type': 'application/json' };
const cursorOf = (parts: unknown) => Buffer.from(JSON.stringify(parts)).toString('base64url');

describe('records API v1: validation', () => {

    let server: Server;
    let family: FamilyFixture;
    let personId: string;
    /** Every request of this file answered with a 5xx: bad input must never get one. */
    const serverErrors: string[] = [];

    before(async () => {

        server = await testServer();
        server.events.on('response', (request) => {

            const statusCode = (request.response as { statusCode?: number }).statusCode ?? 0;
            if (statusCode >= 500) {
                serverErrors.push(`${request.method.toUpperCase()} ${request.url.pathname}${request.url.search}: ${statusCode}`);
            }
        });
        family = await familyWithKey(server);
        personId = dataOf(await family.inject('POST', '/api/v1/persons', createBody('persons')), 201).id;
    });

    after(() => server.stop());

    describe('request bodies', () => {

        it('refuses a value of the wrong type, naming the field', async () => {

            expectError(await family.inject('POST', '/api/v1/finances', { ...createBody('finances'), amount_minor: '1' }), 400, 'invalid_request', 'amount_minor');
            expectError(await family.inject('POST', '/api/v1/persons', { ...createBody('persons'), first_name: 1 }), 400, 'invalid_request', 'first_name');
            expectError(await family.inject('POST', '/api/v1/persons', { ...createBody('persons'), notes: { text: 'x' } }), 400, 'invalid_request', 'notes');
            expectError(await family.inject('PATCH', `/api/v1/persons/${personId}`, { last_name: ['x'] }), 400, 'invalid_request', 'last_name');
            expectError(await family.inject('PATCH', `/api/v1/persons/${personId}`, { birth_date: 1815 }), 400, 'invalid_request', 'birth_date');
        });

        it('refuses unknown fields and the fields the server manages', async () => {

            for (const field of ['nickname', 'id', 'revision', 'created_at', 'updated_at', 'family_long_id']) {
                expectError(await family.inject('POST', '/api/v1/persons', { ...createBody('persons'), [field]: 'x' }), 400, 'invalid_request', field);
                expectError(await family.inject('PATCH', `/api/v1/persons/${personId}`, { [field]: 'x' }), 400, 'invalid_request', field);
            }
        });

        for (const name of creatableResources) {
            const resource = resources[name];

            it(`refuses a ${resource.singular} without each required field, and clearing it with null`, async () => {

                const id = dataOf(await family.inject('POST', `/api/v1/${name}`, createBody(name)), 201).id;
                for (const field of fieldNamesWhere(resource, (declared) => declared.required)) {
                    const { [field]: _left, ...body } = createBody(name);
                    expectError(await family.inject('POST', `/api/v1/${name}`, body), 400, 'invalid_request', field);
                    expectError(await family.inject('PATCH', `/api/v1/${name}/${id}`, { [field]: null }), 400, 'invalid_request', field);
                }

                expect(dataOf(await family.inject('GET', `/api/v1/${name}/${id}`)).revision).to.equal(1);
            });
        }

        it('refuses clearing the required field of gallery and documents records', async () => {

            for (const name of uploadedResources) {
                const id = await insertRecord(server, family.familyLongId, name);
                expectError(await family.inject('PATCH', `/api/v1/${name}/${id}`, { title: null }), 400, 'invalid_request', 'title');
            }
        });

        it('refuses an empty or missing PATCH body', async () => {

            expectError(await family.inject('PATCH', `/api/v1/persons/${personId}`, {}), 400, 'invalid_request', 'person changes');
            expectError(await family.inject('PATCH', `/api/v1/persons/${personId}`), 400, 'invalid_request');
            expectError(await family.inject('POST', '/api/v1/persons'), 400, 'invalid_request');
        });

        it('refuses bodies that are not JSON objects', async () => {

            expectError(await family.inject('POST', '/api/v1/persons', '{"first_name": "Ada",', json), 400, 'invalid_request');
            expectError(await family.inject('PATCH', `/api/v1/persons/${personId}`, 'not json', json), 400, 'invalid_request');
            expectError(await family.inject('POST', '/api/v1/persons', '[]', json), 400, 'invalid_request');
            expectError(await family.inject('POST', '/api/v1/persons', '"Ada"', json), 400, 'invalid_request');
        });

        it('says where a body stops being JSON, and names a __proto__ key rather than calling its JSON broken', async () => {

            expectError(await family.inject('POST', '/api/v1/persons', '{"first_name": "Ada",', json), 400, 'invalid_request', 'The body is not valid JSON: ');
            expectError(await family.inject('PATCH', `/api/v1/persons/${personId}`, '{first_name: "Ada"}', json), 400, 'invalid_request', 'The body is not valid JSON: Expected property name');
            expectError(await family.inject('POST', '/api/v1/persons', '{"first_name":"Ada","last_name":"King","__proto__":{"x":1}}', json), 400, 'invalid_request', 'The body holds a "__proto__" key');
        });

        it('refuses content types other than JSON with 415', async () => {

            const asText = { 'content-type': 'text/plain' };
            const asForm = { 'content-type': 'application/x-www-form-urlencoded' };
            expectError(await family.inject('POST', '/api/v1/persons', 'first_name=Ada&last_name=King', asForm), 415, 'unsupported_media_type', 'This route takes bodies of type application/json: send one with Content-Type: application/json.');
            expectError(await family.inject('POST', '/api/v1/persons', JSON.stringify(createBody('persons')), asText), 415, 'unsupported_media_type');
            expectError(await family.inject('PATCH', `/api/v1/persons/${personId}`, '{"first_name":"Ada"}', asText), 415, 'unsupported_media_type');
        });

        it('refuses a body over 1 MB with 413', async () => {

            const huge = JSON.stringify({ ...createBody('persons'), notes: 'x'.repeat(1024 * 1024) });
            expectError(await family.inject('POST', '/api/v1/persons', huge, json), 413, 'too_large');
            expectError(await family.inject('PATCH', `/api/v1/persons/${personId}`, huge, json), 413, 'too_large');
            expect(dataOf(await family.inject('GET', `/api/v1/persons/${personId}`)).revision).to.equal(1);
        });
    });

    describe('query parameters', () => {

        it('refuses unknown query parameters on every route, naming them', async () => {

            expectError(await family.inject('GET', '/api/v1/persons?colour=red'), 400, 'invalid_request', 'colour');
            expectError(await family.inject('GET', `/api/v1/persons/${personId}?expand=tree`), 400, 'invalid_request', 'expand');
            expectError(await family.inject('PATCH', `/api/v1/persons/${personId}?dry_run=1`, { first_name: 'Ada' }), 400, 'invalid_request', 'dry_run');
            expectError(await family.inject('DELETE', `/api/v1/persons/${personId}?force=1`), 400, 'invalid_request', 'force');
            expectError(await family.inject('POST', '/api/v1/persons?validate_only=1', createBody('persons')), 400, 'invalid_request', 'validate_only');
            expectError(await family.inject('GET', '/api/v1/all?cursor=abc'), 400, 'invalid_request', 'cursor');
        });

        it('refuses sort keys that are unknown or not sortable', async () => {

            expectError(await family.inject('GET', '/api/v1/persons?sort=height'), 400, 'invalid_request', 'sort');
            expectError(await family.inject('GET', '/api/v1/persons?sort=notes'), 400, 'invalid_request', 'sort');
            expectError(await family.inject('GET', '/api/v1/persons?sort=family_long_id'), 400, 'invalid_request', 'sort');
            expectError(await family.inject('GET', '/api/v1/all?sort=first_name'), 400, 'invalid_request', 'sort');
        });

        it('refuses filters on unknown or unfilterable fields', async () => {

            expectError(await family.inject('GET', '/api/v1/persons?filter[height]=2'), 400, 'invalid_request', 'filter[height]');
            expectError(await family.inject('GET', '/api/v1/persons?filter[notes]=x'), 400, 'invalid_request', 'filter[notes]');
            expectError(await family.inject('GET', '/api/v1/persons?filter[family_long_id]=x'), 400, 'invalid_request', 'filter[family_long_id]');
            expectError(await family.inject('GET', '/api/v1/persons?filter[gender][ne]=male'), 400, 'invalid_request', 'filter[gender][ne]');
            expectError(await family.inject('GET', '/api/v1/all?filter[gender]=male'), 400, 'invalid_request', 'filter[gender]');
        });

        it('refuses filter values of the wrong type', async () => {

            expectError(await family.inject('GET', '/api/v1/finances?filter[amount_minor]=abc'), 400, 'invalid_request', 'filter[amount_minor]');
            expectError(await family.inject('GET', '/api/v1/finances?filter[amount_minor]=12.5'), 400, 'invalid_request', 'filter[amount_minor]');
            expectError(await family.inject('GET', '/api/v1/persons?filter[gender]=robot'), 400, 'invalid_request', 'filter[gender]');
            expectError(await family.inject('GET', '/api/v1/persons?filter[birth_date]=2023-02-30'), 400, 'invalid_request', 'filter[birth_date]');
            expectError(await family.inject('GET', '/api/v1/persons?filter[tree_id]=per_AAAAAAAAAAAAAAAAAAAA'), 400, 'invalid_request', 'filter[tree_id]');
            expectError(await family.inject('GET', '/api/v1/finances?filter[currency]=eur'), 400, 'invalid_request', 'filter[currency]');
            expectError(await family.inject('GET', '/api/v1/persons?filter[gender]=male&filter[gender]=female'), 400, 'invalid_request', 'filter[gender]');
        });

        it('refuses a direction other than asc or desc', async () => {

            expectError(await family.inject('GET', '/api/v1/persons?direction=up'), 400, 'invalid_request', 'direction');
            expectError(await family.inject('GET', '/api/v1/persons?sort=last_name&direction=DESC'), 400, 'invalid_request', 'direction');
        });

        it('refuses a limit outside 1 to 100', async () => {

            for (const limit of ['0', '101', 'x', '-1', '2.5', '']) {
                expectError(await family.inject('GET', `/api/v1/persons?limit=${limit}`), 400, 'invalid_request', 'limit');
            }

            expect(dataOf(await family.inject('GET', '/api/v1/persons?limit=100'))).to.be.an.array();
            expectError(await family.inject('GET', '/api/v1/all?limit=0'), 400, 'invalid_request', 'limit');
        });

        it('refuses a cursor it did not return', async () => {

            const tampered = [
                'garbage!', 'e30', cursorOf({ sort: 'created_at' }), cursorOf(['created_at', 'asc', null]),
                cursorOf(['created_at', 'asc', 'not a date', 'per_AAAAAAAAAAAAAAAAAAAA']),
                cursorOf(['created_at', 'asc', '2024-13-45T00:00:00.000Z', 'per_AAAAAAAAAAAAAAAAAAAA']),
                cursorOf(['created_at', 'asc', 1700000000000, 'per_AAAAAAAAAAAAAAAAAAAA']),
                cursorOf(['created_at', 'asc', { $gt: 1 }, 'per_AAAAAAAAAAAAAAAAAAAA']),
                cursorOf(['created_at', 'asc', '2024-01-01T00:00:00.000Z', 42])
            ];
            for (const cursor of tampered) {
                expectError(await family.inject('GET', `/api/v1/persons?cursor=${cursor}`), 400, 'invalid_request', 'cursor');
            }

            expectError(await family.inject('GET', `/api/v1/finances?sort=amount_minor&cursor=${cursorOf(['amount_minor', 'asc', 'abc', 'fin_AAAAAAAAAAAAAAAAAAAA'])}`), 400, 'invalid_request', 'cursor');
            expectError(await family.inject('GET', `/api/v1/finances?sort=amount_minor&cursor=${cursorOf(['amount_minor', 'asc', 1.5, 'fin_AAAAAAAAAAAAAAAAAAAA'])}`), 400, 'invalid_request', 'cursor');
            expectError(await family.inject('GET', `/api/v1/persons?sort=first_name&cursor=${cursorOf(['first_name', 'asc', 7, 'per_AAAAAAAAAAAAAAAAAAAA'])}`), 400, 'invalid_request', 'cursor');
            expectError(await family.inject('GET', `/api/v1/persons?cursor=${'A'.repeat(1001)}`), 400, 'invalid_request', 'cursor');
        });

        it('refuses a cursor whose timestamp names no moment, which PostgreSQL would fail on, and takes one that does', async () => {

            const at = (sort: string, value: string) => `/api/v1/persons?sort=${sort}&cursor=${cursorOf([sort, 'asc', value, 'per_AAAAAAAAAAAAAAAAAAAA'])}`;
            for (const sort of ['created_at', 'updated_at']) {
                for (const value of ['2025-02-30T00:00:00.000Z', '2025-04-31T12:00:00.000Z', '0000-01-01T00:00:00.000Z', '2025-01-01T24:00:00.000Z']) {
                    expectError(await family.inject('GET', at(sort, value)), 400, 'invalid_request', 'cursor');
                }

                expect(dataOf(await family.inject('GET', at(sort, '0001-01-01T00:00:00.000Z')))).to.not.be.empty();
                expect(dataOf(await family.inject('GET', at(sort, '9999-12-31T23:59:59.999Z')))).to.equal([]);
            }
        });

        it('refuses a cursor reused with another sort or direction', async () => {

            for (let variant = 0; variant < 3; ++variant) {
                await family.inject('POST', '/api/v1/trees', createBody('trees', { variant }));
            }

            const page = await family.inject('GET', '/api/v1/trees?sort=name&limit=1');
            const cursor = JSON.parse(page.payload).meta.next_cursor;
            expect(dataOf(await family.inject('GET', `/api/v1/trees?sort=name&limit=1&cursor=${cursor}`))).to.have.length(1);

            expectError(await family.inject('GET', `/api/v1/trees?limit=1&cursor=${cursor}`), 400, 'invalid_request', 'cursor');
            expectError(await family.inject('GET', `/api/v1/trees?sort=created_at&limit=1&cursor=${cursor}`), 400, 'invalid_request', 'cursor');
            expectError(await family.inject('GET', `/api/v1/trees?sort=name&direction=desc&limit=1&cursor=${cursor}`), 400, 'invalid_request', 'cursor');
        });

        it('refuses a cursor of another resource\'s list, which would page this one from some other record', async () => {

            for (let variant = 0; variant < 2; ++variant) {
                await family.inject('POST', '/api/v1/events', createBody('events', { variant }));
            }

            const cursor = JSON.parse((await family.inject('GET', '/api/v1/events?limit=1')).payload).meta.next_cursor;
            expect(dataOf(await family.inject('GET', `/api/v1/events?limit=1&cursor=${cursor}`))).to.have.length(1);
            for (const name of ['persons', 'trees', 'projects']) {
                expectError(await family.inject('GET', `/api/v1/${name}?limit=1&cursor=${cursor}`), 400, 'invalid_request', `cursor does not come from a list of ${name}`);
            }
        });
    });

    describe('references', () => {

        const referencing = creatableResources.flatMap((name) => Object.entries(resources[name].fields)
            .filter(([, field]) => field.type === 'reference')
            .map(([field, declared]) => ({ name, field, target: declared.references! })));

        for (const { name, field, target } of referencing) {

            it(`accepts ${name}.${field} naming a ${resources[target].singular} of the family, and nothing else`, async () => {

                const other = await familyWithKey(server);
                const own = await insertRecord(server, family.familyLongId, target);
                const othersOwn = await insertRecord(server, other.familyLongId, target);
                const missing = `${resources[target].idPrefix}_AAAAAAAAAAAAAAAAAAAA`;
                const wrongKind = `${target === 'persons' ? 'tre' : 'per'}_AAAAAAAAAAAAAAAAAAAA`;

                const created = dataOf(await family.inject('POST', `/api/v1/${name}`, { ...createBody(name), [field]: own }), 201);
                expect(created[field]).to.equal(own);

                for (const id of [othersOwn, missing, wrongKind]) {
                    expectError(await family.inject('POST', `/api/v1/${name}`, { ...createBody(name), [field]: id }), 400, 'invalid_request', field);
                    expectError(await family.inject('PATCH', `/api/v1/${name}/${created.id}`, { [field]: id }), 400, 'invalid_request', field);
                }

                expect(dataOf(await family.inject('GET', `/api/v1/${name}/${created.id}`))).to.include({ [field]: own, revision: 1 });
                expect(dataOf(await family.inject('PATCH', `/api/v1/${name}/${created.id}`, { [field]: null }))[field]).to.equal(null);
            });
        }
    });

    describe('NUL characters (U+0000) and lone surrogates', () => {

        // SQLite cut SQL text at one (500), PostgreSQL refuses it in text (500) or stored the value changed.
        const withNul = 'a\u0000b';
        // Half of 😀's pair: JSON carries it as the escape \ud83d, which UTF-8 cannot encode (both databases stored U+FFFD).
        const loneSurrogate = 'a\ud83d';
        const textFields = (name: ResourceName) => Object.entries(resources[name].fields)
            .filter(([, field]) => isWritable(field) && (field.type === 'string' || field.type === 'text'))
            .map(([field]) => field);

        it('answers 404 not_found to an id holding one, as to an unknown id, and changes nothing', async () => {

            for (const id of ['a%00b', `${personId}%00`, `%00${personId}`]) {
                expectError(await family.inject('GET', `/api/v1/persons/${id}`), 404, 'not_found', 'No person');
                expectError(await family.inject('PATCH', `/api/v1/persons/${id}`, { first_name: 'Nobody' }), 404, 'not_found', 'No person');
                expectError(await family.inject('DELETE', `/api/v1/persons/${id}`), 404, 'not_found', 'No person');
                expectError(await family.inject('GET', `/api/v1/documents/${id}/file`), 404, 'not_found', 'No document');
            }

            expect(dataOf(await family.inject('GET', `/api/v1/persons/${personId}`)).revision).to.equal(1);
        });

        it('refuses one in search, naming it', async () => {

            expectError(await family.inject('GET', '/api/v1/persons?search=a%00b'), 400, 'invalid_request', 'search');
            expectError(await family.inject('GET', '/api/v1/persons?search=ada%00&format=csv'), 400, 'invalid_request', 'search');
            expectError(await family.inject('GET', '/api/v1/all?search=a%00b'), 400, 'invalid_request', 'search');
        });

        it('refuses one in any filter value, naming the filter', async () => {

            for (const name of resourceNames) {
                for (const field of fieldNamesWhere(resources[name], (declared) => declared.filterable)) {
                    expectError(await family.inject('GET', `/api/v1/${name}?filter[${field}]=a%00b`), 400, 'invalid_request', `filter[${field}]`);
                }
            }
        });

        it('refuses a cursor holding one, or a lone surrogate, in its id or its sort value', async () => {

            const id = 'per_AAAAAAAAAAAAAAAAAAAA';
            for (const unstorable of [withNul, loneSurrogate]) {
                expectError(await family.inject('GET', `/api/v1/persons?cursor=${cursorOf(['created_at', 'asc', '2024-01-01T00:00:00.000Z', `${id}${unstorable}`])}`), 400, 'invalid_request', 'cursor');
                expectError(await family.inject('GET', `/api/v1/persons?sort=first_name&cursor=${cursorOf(['first_name', 'asc', unstorable, id])}`), 400, 'invalid_request', 'cursor');
                expectError(await family.inject('GET', `/api/v1/persons?sort=first_name&cursor=${cursorOf(['first_name', 'asc', null, unstorable])}`), 400, 'invalid_request', 'cursor');
            }
        });

        for (const name of resourceNames) {
            const resource = resources[name];

            it(`refuses one, or a lone surrogate, in any text field of a ${resource.singular} body, naming the field, and changes nothing`, async () => {

                const id = resource.creatable ? dataOf(await family.inject('POST', `/api/v1/${name}`, createBody(name)), 201).id : await insertRecord(server, family.familyLongId, name);
                for (const field of textFields(name)) {
                    for (const [unstorable, problem] of [[withNul, 'NUL character'], [loneSurrogate, 'surrogate'], ['\ude00b', 'surrogate']]) {
                        if (resource.creatable) {
                            expectError(await family.inject('POST', `/api/v1/${name}`, { ...createBody(name), [field]: unstorable }), 400, 'invalid_request', `"${field}" must`);
                        }

                        const refused = await family.inject('PATCH', `/api/v1/${name}/${id}`, { [field]: unstorable });
                        expectError(refused, 400, 'invalid_request', field);
                        expect(bodyOf(refused).message).to.contain(problem);
                    }
                }

                expect(dataOf(await family.inject('GET', `/api/v1/${name}/${id}`)).revision).to.equal(1);
            });
        }

        it('takes a character beyond the BMP, whose surrogates come in a pair', async () => {

            const created = dataOf(await family.inject('POST', '/api/v1/persons', { ...createBody('persons'), first_name: 'Ada \ud83d\ude00' }), 201);
            expect(dataOf(await family.inject('GET', `/api/v1/persons/${created.id}`)).first_name).to.equal('Ada 😀');
        });
    });

    describe('afterwards', () => {          // lab runs an experiment's own tests before its sub-experiments: this one comes last

        it('had answered none of the requests above with a 5xx', () => {

            expect(serverErrors).to.equal([]);
        });
    });
});
