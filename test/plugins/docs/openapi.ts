import Fs from 'fs';
import Path from 'path';

import * as Lab from '@hapi/lab';
import Boom from '@hapi/boom';
import { expect } from '@hapi/code';
import Hapi, { type RequestRoute, type Server, type ServerInjectResponse } from '@hapi/hapi';
import { compileErrors, validate } from '@readme/openapi-parser';
import Ajv2020 from 'ajv/dist/2020';
import Joi from 'joi';
import { ConnectionRefusedError } from 'sequelize';

import { gatewayPolicies } from '../../../gateway/policy-chain';
import { disableApi, suspendFamily } from '../../../lib/accounts/families';
import { projectRoot } from '../../../lib/config';
import { livingPersonsPolicyOf } from '../../../lib/privacy/living-persons';
import { becomeServiceUnavailable, retryAfterSeconds } from '../../../lib/service-unavailable';
import { resourceNames, resources, fieldNamesWhere, type ResourceName } from '../../../models/resources';
import { policyErrors } from '../../../plugins/docs/error-codes';
import { openApiDocument } from '../../../plugins/docs/openapi-document';
import type { JsonSchema, OpenApiDocument, OperationObject } from '../../../plugins/docs/openapi-types';
import { defaultPageSize, maxAggregatePerResource, maxPageSize, maxSearchWords } from '../../../plugins/records/schemas';
import { documentedAnswers, type AnswerCheck } from '../../helpers/documented-answers';
import { editPolicyFile, gatewayParts } from '../../helpers/policy-files';
import { copyPolicies, familyWithKey, testServer, type FamilyFixture } from '../../helpers/server';
import { pathOf, sampleFile, upload } from '../files/fixtures';
import { bodyOf, createBody, creatableResources, dataOf, expectError, insertRecord, uploadedResources } from '../records/fixtures';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

/** The codes of DESIGN.md §4: the contract the Error schema must at least carry. */
const designErrorCodes = [
    'invalid_key', 'api_not_enabled', 'plan_not_eligible', 'family_suspended', 'resource_scope', 'operation_scope',
    'not_found', 'invalid_request', 'too_large', 'unsupported_media_type', 'rate_limited'
];

/**
 * The routes the reference leaves out on purpose, each with the reason: it is the API for API
 * clients (the family API and the signed file URLs). Every other route of the server is in it.
 */
const outsideReference: { reason: string; holds: (route: RequestRoute) => boolean }[] = [
    {
        reason: 'the hosted site: pages and their JSON, for people signed in with a session cookie, not API clients',
        holds: (route) => Boolean((route.settings.auth || undefined)?.strategies?.includes('site-session')) || route.path.startsWith('/site/')
    },
    { reason: 'this reference itself, as a page for people', holds: (route) => route.path === '/docs' },
    { reason: 'the next version of the API, in its own reference (test/lib/api-versions.ts)', holds: (route) => route.path.startsWith('/api/v2') || route.path === '/docs/api/v2' },
    { reason: 'health probes, for load balancers and orchestrators', holds: (route) => ['/healthz', '/readyz'].includes(route.path) },
    {
        reason: 'connected devices\' OAuth endpoints and messaging API, not the family API: docs/devices.md',
        holds: (route) => /^\/(oauth|messaging)\/|^\/\.well-known\/oauth-authorization-server$|^\/docs\/messaging\//.test(route.path)
    }
];

/** Public operations: the reference itself and the signed file URLs, whose URL is the credential. */
const publicPaths = ['/api/v1/openapi.json', '/files/{token}'];

const documentedOperations = (document: OpenApiDocument): [string, string, OperationObject][] =>
    Object.entries(document.paths).flatMap(([path, operations]) => Object.entries(operations).map(([method, operation]): [string,
        string, OperationObject] => [path, method, operation]));

/** Every Schema Object of the document, wherever OpenAPI puts one. */
function schemasIn(document: OpenApiDocument): JsonSchema[] {

    const schemas: JsonSchema[] = [...Object.values(document.components.schemas), ...Object.values(document.components.headers).map((header) => header.schema)];
    for (const [, , operation] of documentedOperations(document)) {
        schemas.push(...operation.parameters.map((parameter) => parameter.schema));
        for (const holder of [operation.requestBody, ...Object.values(operation.responses)]) {
            schemas.push(...Object.values(holder?.content ?? {}).flatMap((media) => (media.schema ? [media.schema] : [])));
        }
    }

    return schemas;
}

describe('GET /api/v1/openapi.json', () => {

    let server: Server;
    let document: OpenApiDocument;
    let etag: string;
    let ajv: Ajv2020;
    let documented: AnswerCheck;

    /** Expects `body` to be what the document promises for this path, method, status and JSON content. */
    const expectDocumented = (path: string, method: string, status: number, body: unknown) => {

        const problem = documented(path, method, status, body);
        expect(problem, problem).to.not.exist();
    };

    /** Every field a record carries is a property of its resource's schema. */
    const expectFieldsDocumented = (name: ResourceName, record: Record<string, unknown>) => {

        const schemaName = Object.keys(document.components.schemas).find((candidate) => document.components.schemas[candidate].description === resources[name].description)!;
        const schemaFields = Object.keys(document.components.schemas[schemaName].properties as object);
        expect(Object.keys(record).filter((field) => !schemaFields.includes(field)), `${name} fields missing from schema ${schemaName}`).to.equal([]);
    };

    before(async () => {

        server = await testServer();
        const response = await server.inject('/api/v1/openapi.json');
        expect(response.statusCode, response.payload).to.equal(200);
        document = bodyOf(response);
        etag = response.headers.etag as string;
        ajv = new Ajv2020({ strict: false, validateFormats: false });
        ajv.addSchema(document, 'openapi.json');
        documented = documentedAnswers(document);
    });

    after(() => server.stop());

    it('is served without a key, cacheable, and revalidated with its ETag', async () => {

        const response = await server.inject('/api/v1/openapi.json');
        expect(response.statusCode).to.equal(200);
        expect(response.headers['content-type']).to.equal('application/json; charset=utf-8');
        expect(response.headers['cache-control']).to.contain(['public', 'max-age=300']);
        expect(etag).to.match(/^"[\w-]+"$/);
        expect(response.headers.etag).to.equal(etag);

        const unchanged = await server.inject({ url: '/api/v1/openapi.json', headers: { 'if-none-match': etag } });
        expect(unchanged.statusCode).to.equal(304);
        expect(unchanged.payload).to.equal('');
    });

    it('answers If-None-Match: * with 304, as RFC 9110 §13.1.2 says of a representation that exists (the page too)', async () => {

        for (const url of ['/api/v1/openapi.json', '/docs']) {
            const unchanged = await server.inject({ url, headers: { 'if-none-match': '*' } });
            expect(unchanged.statusCode, url).to.equal(304);
            expect(unchanged.payload, url).to.equal('');
            expect(unchanged.headers.etag, url).to.match(/^"[\w-]+"$/);
            expect(unchanged.headers['cache-control'], url).to.contain(['public', 'max-age=300']);
        }
    });

    it('refuses a query with 400 invalid_request, as every API route refuses parameters it does not take (the page too)', async () => {

        for (const url of ['/api/v1/openapi.json?x=1', '/docs?x=1']) {
            expectError(await server.inject(url), 400, 'invalid_request', '"x" is not allowed');
        }

        expectDocumented('/api/v1/openapi.json', 'get', 400, bodyOf(await server.inject('/api/v1/openapi.json?format=yaml')));
        expect(document.paths['/api/v1/openapi.json'].get.parameters).to.equal([]);
    });

    it('documents what it answers itself: 200 or 304 with the ETag, 400 for a query, and always the whole document', async () => {

        const operation = document.paths['/api/v1/openapi.json'].get;
        expect(Object.keys(operation.responses)).to.equal(['200', '304', '400']);
        expect(operation.responses['304'].description).to.contain('`*`');
        expect(operation.responses['400'].description).to.equal('`invalid_request`: The URL has a query: this document takes none.');
        for (const status of ['200', '304']) {
            expect(operation.responses[status].headers).to.include(['ETag', 'Cache-Control']);
        }

        for (const url of ['/api/v1/openapi.json', '/docs']) {
            const ranged = await server.inject({ url, headers: { range: 'bytes=0-9' } });
            expect(ranged.statusCode, url).to.equal(200);
            expect(ranged.headers['accept-ranges'], url).to.not.exist();
        }
    });

    it('is a valid OpenAPI 3.1 document', async () => {

        expect(document.openapi).to.equal('3.1.0');
        const result = await validate(structuredClone(document) as never);
        expect(result.valid, result.valid ? '' : compileErrors(result)).to.be.true();
        expect(result.warnings).to.equal([]);
    });

    it('holds only valid JSON Schema 2020-12 schemas', () => {

        const schemas = schemasIn(document);
        expect(schemas.length).to.be.above(100);
        for (const schema of schemas) {
            expect(ajv.validateSchema(schema), `${JSON.stringify(schema)}: ${ajv.errorsText()}`).to.be.true();
        }
    });

    it('documents every route of the server with its method, but those left out on purpose, and nothing else', () => {

        const routes = server.table().filter((route) => !outsideReference.some((rule) => rule.holds(route)))
            .map((route) => `${route.method} ${route.path.replace(/\{(\w+)[?*]?\d*\}/g, '{$1}')}`);
        const documentedRoutes = documentedOperations(document).map(([path, method]) => `${method} ${path}`);

        expect(routes.length).to.be.above(35);
        expect(routes).to.include(['get /files/{token}', 'get /api/v1/openapi.json']);
        expect(documentedRoutes.sort()).to.equal(routes.sort());
        for (const rule of outsideReference) {
            expect(server.table().some(rule.holds), `a rule that leaves out no route: ${rule.reason}`).to.be.true();
        }
    });

    it('takes the information, server and security scheme from the deployment', () => {

        const pkg = JSON.parse(Fs.readFileSync(Path.join(projectRoot, 'package.json'), 'utf8'));
        expect(document.info.version).to.equal(pkg.version);
        expect(document.servers).to.equal([{ url: server.app.services.config.publicBaseUrl }]);
        expect(document.components.securitySchemes['family-api']).to.include({ type: 'http', scheme: 'bearer' });
        expect(document.components.securitySchemes['family-api'].description).to.contain('frk_');

        for (const [path, method, operation] of documentedOperations(document)) {
            const expected = publicPaths.includes(path) ? [] : [{ 'family-api': [] }];
            expect(operation.security, `${method} ${path}`).to.equal(expected);
        }
    });

    it('gives every resource a record schema and one filter[field] parameter per filterable field', () => {

        for (const name of resourceNames) {
            const list = document.paths[`/api/v1/${name}`].get;
            const filters = list.parameters.filter((parameter) => parameter.name.startsWith('filter[')).map((parameter) => parameter.name);
            expect(filters, name).to.equal(fieldNamesWhere(resources[name], (field) => field.filterable).map((field) => `filter[${field}]`));
            expect(list.parameters.map((parameter) => parameter.name)).to.include(['format', 'search', 'sort', 'direction', 'limit', 'cursor']);
            expect(list.responses['200'].headers).to.include(['Link', 'RateLimit', 'RateLimit-Policy']);

            const record = list.responses['200'].content!['application/json'].schema as any;
            const schema = document.components.schemas[record.properties.data.items.$ref.split('/').pop()];
            expect(Object.keys(schema.properties as object)).to.include(['id', ...Object.keys(resources[name].fields), 'revision', 'created_at', 'updated_at']);
            expect((schema.properties as any).created_at.readOnly).to.be.true();
        }

        const gender = document.components.schemas.Person.properties as any;
        expect(gender.gender.enum).to.equal(['female', 'male', 'other', 'unknown']);
        expect(gender.birth_date.pattern).to.equal('^\\d{4}(-\\d{2}(-\\d{2})?)?$');
        expect(gender.first_name.readOnly).to.not.exist();
    });

    it('names the operation scopes each route and query parameter needs', () => {

        for (const route of server.table().filter((candidate) => candidate.settings.plugins?.gateway?.operation && candidate.path.startsWith('/api/v1/'))) {
            const operation = document.paths[route.path][route.method];
            expect(operation['x-required-operations'], `${route.method} ${route.path}`).to.equal([route.settings.plugins!.gateway!.operation]);
            expect(operation['x-resource']).to.equal(route.settings.plugins!.gateway!.resource);
        }

        const needs = Object.fromEntries(document.paths['/api/v1/persons'].get.parameters.map((parameter) => [parameter.name, parameter['x-required-operations']]));
        expect(needs).to.include({ search: ['search'], sort: ['sort'], direction: ['sort'], 'filter[gender]': ['filter'], limit: undefined, cursor: undefined });
    });

    it('lists every error code, and which of them each route can answer', () => {

        const codes = (document.components.schemas.Error.properties as any).code.enum;
        expect(codes).to.include(designErrorCodes);

        const codesOf = (path: string, method: string, status: string) => (document.paths[path][method].responses[status].content!['application/json'].schema as any).allOf[1].properties.code.enum;
        expect(codesOf('/api/v1/persons', 'get', '401')).to.equal(['invalid_key']);
        expect(codesOf('/api/v1/persons', 'get', '403')).to.equal(['plan_not_eligible', 'api_not_enabled', 'family_suspended', 'resource_scope', 'operation_scope']);
        expect(codesOf('/api/v1/persons', 'get', '429')).to.equal(['rate_limited']);
        expect(codesOf('/api/v1/persons', 'post', '413')).to.equal(['too_large']);
        expect(codesOf('/api/v1/persons', 'post', '415')).to.equal(['unsupported_media_type']);
        expect(codesOf('/api/v1/persons/{id}', 'get', '404')).to.equal(['not_found']);
        expect(document.paths['/api/v1/persons'].get.responses['404']).to.not.exist();
        expect(document.paths['/api/v1/persons'].get.responses['413']).to.not.exist();
        expect(document.paths['/api/v1/persons'].get.responses['429'].headers).to.include('Retry-After');
        expect(document.paths['/api/v1/persons'].get.responses['401'].headers).to.equal({ 'WWW-Authenticate': { $ref: '#/components/headers/WWW-Authenticate' }, 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } });
    });

    it('says every route that reads the database may answer 503 service_unavailable with Retry-After, as the service makes it', () => {

        const readers = documentedOperations(document).filter(([path]) => path !== '/api/v1/openapi.json');
        expect(readers.length).to.be.above(30);
        for (const [path, method, operation] of readers) {
            const unavailable = operation.responses['503'];
            expect(unavailable, `${method} ${path}`).to.exist();
            expect((unavailable.content!['application/json'].schema as any).allOf[1].properties.code.enum, `${method} ${path}`).to.equal(['service_unavailable']);
            expect(unavailable.headers, `${method} ${path}`).to.include({ 'Retry-After': { $ref: '#/components/headers/Retry-After' } });
        }

        // The reference is generated at start-up: it reads no database.
        expect(document.paths['/api/v1/openapi.json'].get.responses['503']).to.not.exist();

        // The answer errorCodes() makes of a failure because the database refused the connection.
        const refused = Boom.boomify(new ConnectionRefusedError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })));
        becomeServiceUnavailable(refused);
        expectDocumented('/api/v1/persons', 'get', 503, refused.output.payload);
        expect(refused.output.headers['Retry-After']).to.equal(String(retryAfterSeconds));
    });

    it('documents the signed file URLs: public, the file\'s responses and the codes they answer', async () => {

        const operation = document.paths['/files/{token}'].get;
        const codesOf = (status: string) => (operation.responses[status].content!['application/json'].schema as any).allOf[1].properties.code.enum;
        expect(operation.operationId).to.equal('getFilesByToken');
        expect(Object.keys(operation.responses)).to.equal(['200', '206', '304', '400', '403', '404', '412', '416', '503']);
        expect(codesOf('403')).to.equal(['invalid_signature', 'url_expired']);
        expect(codesOf('503')).to.equal(['service_unavailable']);
        expect(codesOf('412')).to.equal(['precondition_failed']);
        expect(codesOf('416')).to.equal(['range_not_satisfiable']);
        expect(operation.parameters.filter((parameter) => parameter.in === 'header').map((parameter) => parameter.name)).to.equal(['If-Match', 'If-None-Match', 'If-Unmodified-Since']);
        expect(operation.responses['304'].description).to.contain('`*`');
        expect(operation.responses['400'].description).to.equal('`invalid_request`: The token is longer than any this service issues (1,000 characters), or the URL has a query: this route takes none; or If-Match is neither `*` nor entity tags.');
        expect(operation.responses['404'].description).to.equal('`not_found`: The file is gone: its gallery item or document was deleted after the URL was issued; or the URL was issued to a key with `living_persons: redacted` and the record now concerns a living person.');
        expect(operation.responses['416'].headers).to.equal({ 'Content-Range': { $ref: '#/components/headers/Content-Range' }, 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } });
        expect(operation.responses['206'].headers).to.include(['Content-Range', 'ETag', 'Last-Modified', 'Cache-Control', 'Content-Security-Policy']);
        expect(operation.responses['304'].headers).to.include(['ETag', 'Last-Modified', 'Cache-Control']);
        expect(operation.responses['200'].headers).to.not.include('RateLimit');

        const family = await familyWithKey(server);
        const path = pathOf(dataOf(await upload(family, 'gallery', sampleFile('png', 100)), 201).url);
        expect((await server.inject(path)).statusCode).to.equal(200);
        expect((await server.inject({ url: path, headers: { range: 'bytes=0-9' } })).statusCode).to.equal(206);
        expectDocumented('/files/{token}', 'get', 416, bodyOf(await server.inject({ url: path, headers: { range: 'bytes=100-' } })));
        expectDocumented('/files/{token}', 'get', 403, bodyOf(await server.inject(`${path}=`)));
        expectDocumented('/files/{token}', 'get', 400, bodyOf(await server.inject(`${path}?x=1`)));
        expectDocumented('/files/{token}', 'get', 400, bodyOf(await server.inject(`/files/${'a'.repeat(1001)}`)));
        expectDocumented('/files/{token}', 'get', 412, bodyOf(await server.inject({ url: path, headers: { 'if-match': '"another"' } })));
    });

    it('documents conditional requests on a record: its ETag, If-None-Match (304), If-Match and If-Unmodified-Since (412)', async () => {

        const headerParameters = (operation: OperationObject) => operation.parameters.filter((parameter) => parameter.in === 'header').map((parameter) => parameter.name);
        const codesOf = (operation: OperationObject, status: string) => (operation.responses[status].content!['application/json'].schema as any).allOf[1].properties.code.enum;
        const etagHeader = { $ref: '#/components/headers/ETag' };
        expect(document.components.headers.ETag.description).to.contain('not the bytes');

        for (const name of resourceNames) {
            const one = document.paths[`/api/v1/${name}/{id}`];
            expect(headerParameters(one.get), name).to.equal(['If-None-Match']);
            expect(one.get.responses['200'].headers, name).to.include({ ETag: etagHeader });
            expect(one.get.responses['304'].headers, name).to.include({ ETag: etagHeader });
            expect(one.get.responses['412'], name).to.not.exist();
            for (const write of [one.patch, one.delete]) {
                expect(headerParameters(write), name).to.equal(['If-Match', 'If-Unmodified-Since']);
                expect(codesOf(write, '412'), name).to.equal(['precondition_failed']);
                expect(write.responses['304'], name).to.not.exist();
            }

            expect(one.patch.responses['200'].headers, name).to.include({ ETag: etagHeader });
            expect(document.paths[`/api/v1/${name}`].post.responses['201'].headers, name).to.include({ Location: { $ref: '#/components/headers/Location' }, ETag: etagHeader });
            expect(headerParameters(document.paths[`/api/v1/${name}`].get), name).to.equal([]);
        }

        const family = await familyWithKey(server);
        const id = dataOf(await family.inject('POST', '/api/v1/persons', createBody('persons')), 201).id;
        expect((await family.inject('GET', `/api/v1/persons/${id}`, undefined, { 'if-none-match': '"1"' })).statusCode).to.equal(304);
        expectDocumented('/api/v1/persons/{id}', 'patch', 412, bodyOf(await family.inject('PATCH', `/api/v1/persons/${id}`, { notes: 'x' }, { 'if-match': '"2"' })));
        expectDocumented('/api/v1/persons/{id}', 'delete', 412, bodyOf(await family.inject('DELETE', `/api/v1/persons/${id}`, undefined, { 'if-match': '"2"' })));
        expectDocumented('/api/v1/persons/{id}', 'patch', 400, bodyOf(await family.inject('PATCH', `/api/v1/persons/${id}`, { notes: 'x' }, { 'if-match': '2' })));
    });

    it('says on the uploads that a 413 or 415 may be about the file, not only the body', () => {

        for (const name of uploadedResources) {
            const { responses } = document.paths[`/api/v1/${name}`].post;
            expect(responses['413'].description, name).to.startWith('`too_large`: The body is larger than the route accepts, or the file larger than the family\'s plan accepts.');
            expect(responses['415'].description, name).to.equal('`unsupported_media_type`: The body is not JSON, or the file is not of a type the resource takes, or not of its declared `mime_type` (the message names what its content looks like).');
        }

        expect(document.paths['/api/v1/persons'].post.responses['413'].description).to.equal('`too_large`: The body is larger than the route accepts.');
    });

    it('answers a request without a key on every secured route as documented', async () => {

        for (const [path, method, operation] of documentedOperations(document).filter(([, , candidate]) => candidate.security.length > 0)) {
            const response = await server.inject({ method, url: path.replace(/\{\w+\}/g, 'x') });
            expect(response.statusCode, `${method} ${path}`).to.equal(401);
            expectDocumented(path, method, 401, bodyOf(response));
            expect(operation.responses['401']).to.exist();
        }
    });

    it('documents the limit of a JSON list and of an export as the server applies them', async () => {

        const family = await familyWithKey(server);
        for (let i = 0; i <= defaultPageSize; ++i) {
            await insertRecord(server, family.familyLongId, 'persons');
        }

        const personRows = (csv: string) => csv.match(new RegExp(`^${resources.persons.idPrefix}_`, 'gm'))?.length;
        for (const [path, maximum, usual] of [['/api/v1/persons', maxPageSize, defaultPageSize], ['/api/v1/all', maxAggregatePerResource, maxAggregatePerResource]] as const) {
            const parameter = (name: string) => document.paths[path].get.parameters.find((candidate) => candidate.name === name)!;
            const limit = parameter('limit');
            const exports = (parameter('format').schema.enum as string[]).filter((format) => format !== 'json');
            expect(exports).to.equal(['csv', 'html', 'pdf', 'gedcom']);
            expect(limit.schema).to.equal({ type: 'integer', minimum: 1, maximum, default: usual });
            expect(limit.description!).to.endWith('When `format` is `csv`, `html`, `pdf` or `gedcom`: no default and no maximum.');

            // A JSON list, with or without format=json, takes what the schema says and nothing more.
            for (const json of ['', 'format=json&']) {
                expect(ajv.validate(limit.schema, maximum)).to.be.true();
                expect((await family.inject('GET', `${path}?${json}limit=${maximum}`)).statusCode).to.equal(200);
                expect(ajv.validate(limit.schema, maximum + 1)).to.be.false();
                expectDocumented(path, 'get', 400, bodyOf(await family.inject('GET', `${path}?${json}limit=${maximum + 1}`)));
            }

            for (const format of exports) {
                const exported = await family.inject('GET', `${path}?format=${format}&limit=${maximum + 1}`);
                expect(exported.statusCode, `${path} ${format}`).to.equal(200);
            }
        }

        const page = bodyOf(await family.inject('GET', '/api/v1/persons'));
        expect(page.data.length).to.equal(defaultPageSize);
        expect(page.meta.next_cursor).to.be.a.string();
        expect(personRows((await family.inject('GET', '/api/v1/persons?format=csv')).payload)).to.equal(defaultPageSize + 1);

        expect(document.paths['/api/v1/persons'].get.parameters.find((candidate) => candidate.name === 'cursor')!.description!).to.endWith('When `format` is `csv`, `html`, `pdf` or `gedcom`: not allowed.');
        expectDocumented('/api/v1/persons', 'get', 400, bodyOf(await family.inject('GET', `/api/v1/persons?format=csv&cursor=${encodeURIComponent(page.meta.next_cursor)}`)));
    });

    it('documents every text length as the server counts it: in characters (code points), as JSON Schema does', async () => {

        // Ajv counts maxLength in code points, as JSON Schema says; 😀 is two UTF-16 units.
        const family = await familyWithKey(server);
        const parameter = (path: string, name: string) => document.paths[path].get.parameters.find((candidate) => candidate.name === name)!.schema;
        const body = (path: string) => (document.paths[path].post.requestBody!.content['application/json'].schema as JsonSchema).properties as Record<string, JsonSchema>;
        const cases: [JsonSchema, number, (text: string) => Promise<ServerInjectResponse>][] = [
            [(document.components.schemas.Person.properties as any).first_name, 100, (text) => family.inject('POST', '/api/v1/persons', { ...createBody('persons'), first_name: text })],
            [body('/api/v1/persons').first_name, 100, (text) => family.inject('POST', '/api/v1/persons', { ...createBody('persons'), first_name: text })],
            [body('/api/v1/trees').description, 10000, (text) => family.inject('POST', '/api/v1/trees', { ...createBody('trees'), description: text })],
            [parameter('/api/v1/persons', 'search'), 200, (text) => family.inject('GET', `/api/v1/persons?search=${encodeURIComponent(text)}`)],
            [parameter('/api/v1/all', 'search'), 200, (text) => family.inject('GET', `/api/v1/all?search=${encodeURIComponent(text)}`)],
            [parameter('/api/v1/finances', 'filter[description]'), 200, (text) => family.inject('GET', `/api/v1/finances?filter[description]=${encodeURIComponent(text)}`)]
        ];

        for (const [schema, maxLength, send] of cases) {
            expect(schema.maxLength).to.equal(maxLength);
            const longest = '😀'.repeat(maxLength);
            expect(ajv.validate(schema, longest)).to.be.true();
            expect((await send(longest)).statusCode, `${maxLength} characters`).to.be.within(200, 201);
            expect(ajv.validate(schema, `${longest}😀`)).to.be.false();
            expectError(await send(`${longest}😀`), 400, 'invalid_request', `less than or equal to ${maxLength} characters`);
        }
    });

    it('documents the most words a search takes, as the server counts them', async () => {

        const family = await familyWithKey(server);
        const words = (count: number) => Array.from({ length: count }, (_, index) => `w${index}`).join(' ');
        for (const path of [...resourceNames.map((name) => `/api/v1/${name}`), '/api/v1/all']) {
            const search = document.paths[path].get.parameters.find((parameter) => parameter.name === 'search')!;
            expect(search.description, path).to.contain(`At most ${maxSearchWords} words.`);
            expect((await family.inject('GET', `${path}?search=${encodeURIComponent(words(maxSearchWords))}`)).statusCode, path).to.equal(200);
            expectError(await family.inject('GET', `${path}?search=${encodeURIComponent(words(maxSearchWords + 1))}`), 400, 'invalid_request', `more than ${maxSearchWords} words`);
        }
    });

    it('documents that an update names at least one field, as the server refuses an empty one', async () => {

        const family = await familyWithKey(server);
        for (const name of resourceNames) {
            const schema = document.paths[`/api/v1/${name}/{id}`].patch.requestBody!.content['application/json'].schema as JsonSchema;
            expect(schema.minProperties, name).to.equal(1);
            expect(ajv.validate(schema, {}), name).to.be.false();
        }

        const id = await insertRecord(server, family.familyLongId, 'trees');
        const refused = await family.inject('PATCH', `/api/v1/trees/${id}`, {});
        expectError(refused, 400, 'invalid_request', 'must have at least 1 key');
        expectDocumented('/api/v1/trees/{id}', 'patch', 400, bodyOf(refused));
    });

    it('documents currency as the server takes it: three capital letters, and says only codes in current use are taken', async () => {

        const family = await familyWithKey(server);
        for (const schema of [(document.components.schemas.FinanceEntry.properties as any).currency, (document.paths['/api/v1/finances'].post.requestBody!.content['application/json'].schema as any).properties.currency]) {
            expect(schema.pattern).to.equal('^[A-Z]{3}$');
            expect(schema.enum).to.not.exist();
            expect(schema.description).to.contain('in current use');
        }

        // A stored code no longer taken still matches what the responses promise.
        const id = await insertRecord(server, family.familyLongId, 'finances', { ...createBody('finances'), currency: 'XYZ' });
        expectDocumented('/api/v1/finances/{id}', 'get', 200, bodyOf(await family.inject('GET', `/api/v1/finances/${id}`)));
        expectDocumented('/api/v1/finances', 'post', 400, bodyOf(await family.inject('POST', '/api/v1/finances', { ...createBody('finances'), currency: 'XYZ' })));
    });

    it('says which responses carry the RateLimit headers, as the server sends them', async () => {

        /** Whether the document says this status and code come with the RateLimit headers. */
        const documentedWithHeaders = (path: string, status: number, code?: string) => {

            const response = document.paths[path].get.responses[String(status)];
            const only = /Only (.+) carry the RateLimit headers/.exec(response.description)?.[1];
            return 'RateLimit' in (response.headers ?? {}) && (only === undefined || only.includes(`\`${code}\``));
        };

        const { accounts } = server.app.services;
        const family = await familyWithKey(server);
        const suspended = await familyWithKey(server);
        await suspendFamily(accounts, suspended.familyLongId, 'Unusual traffic', 'test');
        const disabled = await familyWithKey(server);
        await disableApi(accounts, disabled.familyLongId);
        const requests: [FamilyFixture, string, string, string | undefined][] = [
            [family, '/api/v1/persons', '/api/v1/persons', undefined],
            [family, '/api/v1/persons?sort=notes', '/api/v1/persons', 'invalid_request'],
            [family, '/api/v1/persons/per_x', '/api/v1/persons/{id}', 'not_found'],
            [await familyWithKey(server, { plan: 'lite' }), '/api/v1/persons', '/api/v1/persons', 'plan_not_eligible'],
            [disabled, '/api/v1/persons', '/api/v1/persons', 'api_not_enabled'],
            [suspended, '/api/v1/persons', '/api/v1/persons', 'family_suspended'],
            [await familyWithKey(server, { keyResources: ['trees'] }), '/api/v1/persons', '/api/v1/persons', 'resource_scope'],
            [await familyWithKey(server, { operations: ['read'] }), '/api/v1/persons?search=x', '/api/v1/persons', 'operation_scope']
        ];

        const sent: Record<string, boolean> = {};
        for (const [client, url, path, code] of requests) {
            const response = await client.inject('GET', url);
            expect(bodyOf(response).code, url).to.equal(code);
            sent[code ?? 'ok'] = response.headers.ratelimit !== undefined;
            expect(sent[code ?? 'ok'], `${url}: ${code}`).to.equal(documentedWithHeaders(path, response.statusCode, code));
        }

        const unauthenticated = await server.inject('/api/v1/persons');
        expect(unauthenticated.headers.ratelimit).to.not.exist();
        expect(documentedWithHeaders('/api/v1/persons', unauthenticated.statusCode, 'invalid_key')).to.be.false();
        expect(sent).to.equal({ ok: true, invalid_request: true, not_found: true, plan_not_eligible: false, api_not_enabled: false,
            family_suspended: false, resource_scope: true, operation_scope: true });
    });

    it('lists the error codes the documented routes can answer, and no other', async () => {

        const error = document.components.schemas.Error;
        const codes = (error.properties as any).code.enum as string[];
        const answered = documentedOperations(document).flatMap(([, , operation]) => Object.values(operation.responses)
            .flatMap((response) => (response.content?.['application/json']?.schema as any)?.allOf?.[1].properties.code.enum ?? []));

        // Any route may fail unexpectedly, and any path refuses a method it does not take; no route lists either.
        expect([...codes].sort()).to.equal([...new Set([...answered, 'method_not_allowed', 'internal_error'])].sort());
        expect(codes).to.not.include(['unauthorized', 'forbidden', 'conflict']);
        expect(Object.keys((error.properties as any).code['x-enumDescriptions'])).to.equal(codes);

        // A method a path does not take is a 405 naming those it takes, as the description says.
        const family = await familyWithKey(server);
        const wrongMethod = await family.inject('PUT', '/api/v1/persons', {});
        expect(bodyOf(wrongMethod)).to.include({ statusCode: 405, code: 'method_not_allowed' });
        expect(wrongMethod.headers.allow).to.equal('GET, HEAD, POST');
        expect(error.description).to.contain('a method a path does not take is 405 `method_not_allowed`, with an `Allow` header');
        expect(error.description).to.contain('431 `too_large`');
    });

    it('says every response carries X-Request-Id, as the server sends it', async () => {

        expect(document.components.headers['X-Request-Id']).to.include({ required: true });
        const responses = documentedOperations(document).flatMap(([path, method, operation]) => Object.entries(operation.responses).map(([status, response]) => [`${method} ${path} ${status}`, response] as const));
        expect(responses.length).to.be.above(150);
        for (const [what, response] of responses) {
            expect(response.headers?.['X-Request-Id'], what).to.equal({ $ref: '#/components/headers/X-Request-Id' });
        }

        const family = await familyWithKey(server);
        const answers = [await server.inject('/api/v1/openapi.json'), await family.inject('GET', '/api/v1/persons'), await server.inject('/api/v1/persons'), await family.inject('GET', '/api/v1/persons?sort=notes')];
        for (const answer of answers) {
            expect(answer.headers['x-request-id'], answer.request.url.pathname).to.match(new RegExp((document.components.headers['X-Request-Id'].schema as { pattern: string }).pattern));
        }
    });

    it('describes the bodies the API really sends', async () => {

        const family = await familyWithKey(server);
        for (const name of creatableResources) {
            const created = await family.inject('POST', `/api/v1/${name}`, createBody(name));
            expect(created.statusCode, created.payload).to.equal(201);
            expectDocumented(`/api/v1/${name}`, 'post', 201, bodyOf(created));
            expectFieldsDocumented(name, bodyOf(created).data);
        }

        for (const name of uploadedResources) {
            await insertRecord(server, family.familyLongId, name);
        }

        for (const name of resourceNames) {
            const list = await family.inject('GET', `/api/v1/${name}?limit=1`);
            expectDocumented(`/api/v1/${name}`, 'get', 200, bodyOf(list));
            const [record] = bodyOf(list).data;
            expectFieldsDocumented(name, record);

            const read = await family.inject('GET', `/api/v1/${name}/${record.id}`);
            expectDocumented(`/api/v1/${name}/{id}`, 'get', 200, bodyOf(read));
        }

        const person = bodyOf(await family.inject('GET', '/api/v1/persons')).data[0];
        expectDocumented('/api/v1/persons/{id}', 'patch', 200, bodyOf(await family.inject('PATCH', `/api/v1/persons/${person.id}`, { notes: 'Changed.' })));
        expectDocumented('/api/v1/all', 'get', 200, bodyOf(await family.inject('GET', '/api/v1/all')));
        expectDocumented('/api/v1/persons/{id}', 'delete', 200, bodyOf(await family.inject('DELETE', `/api/v1/persons/${person.id}`)));
        expectDocumented('/api/v1/persons/{id}', 'get', 404, bodyOf(await family.inject('GET', `/api/v1/persons/${person.id}`)));
        expectDocumented('/api/v1/persons', 'get', 400, bodyOf(await family.inject('GET', '/api/v1/persons?sort=notes')));

        const readOnly = await familyWithKey(server, { operations: ['read'] });
        expectDocumented('/api/v1/persons', 'get', 403, bodyOf(await readOnly.inject('GET', '/api/v1/persons?search=x')));
    });

    it('declares every field the records of every resource carry: a copy taking no undeclared property validates real answers', async () => {

        const closedCheck = documentedAnswers(document, { closed: true });
        const expectDeclared = (path: string, method: string, status: number, response: ServerInjectResponse) => {

            const problem = closedCheck(path, method, status, bodyOf(response));
            expect(problem, problem).to.not.exist();
        };

        const family = await familyWithKey(server);
        for (const name of creatableResources) {
            expectDeclared(`/api/v1/${name}`, 'post', 201, await family.inject('POST', `/api/v1/${name}`, createBody(name)));
        }

        expectDeclared('/api/v1/gallery', 'post', 201, await upload(family, 'gallery', sampleFile('png')));
        expectDeclared('/api/v1/documents', 'post', 201, await upload(family, 'documents', sampleFile('pdf')));
        for (const name of resourceNames) {
            const list = await family.inject('GET', `/api/v1/${name}`);
            expectDeclared(`/api/v1/${name}`, 'get', 200, list);
            const [record] = bodyOf(list).data;
            expect(record, name).to.exist();
            expectDeclared(`/api/v1/${name}/{id}`, 'get', 200, await family.inject('GET', `/api/v1/${name}/${record.id}`));
            expectDeclared(`/api/v1/${name}/{id}`, 'patch', 200, await family.inject('PATCH', `/api/v1/${name}/${record.id}`, createBody(name, { variant: 1, requiredOnly: true })));
        }

        expectDeclared('/api/v1/all', 'get', 200, await family.inject('GET', '/api/v1/all'));
    });
});

describe('the reference after a policy reload', () => {

    it('follows scopes.yaml: a new document and page, with a new ETag', async () => {

        const policiesDir = copyPolicies();
        const server = await testServer({ policiesDir });
        try {
            const before = await server.inject('/api/v1/openapi.json');
            const pageBefore = await server.inject('/docs');
            const directionNeeds = (response: Parameters<typeof bodyOf>[0]) => (bodyOf(response) as OpenApiDocument).paths['/api/v1/persons'].get.parameters.find((parameter) => parameter.name === 'direction')!['x-required-operations'];
            expect(directionNeeds(before)).to.equal(['sort']);

            editPolicyFile(policiesDir, 'scopes.yaml', '  - parameter: direction\n    operation: sort', '  - parameter: direction\n    operation: search');
            expect(server.app.services.policyStore.reload()).to.be.true();

            const after = await server.inject({ url: '/api/v1/openapi.json', headers: { 'if-none-match': before.headers.etag as string } });
            expect(after.statusCode).to.equal(200);
            expect(after.headers.etag).to.not.equal(before.headers.etag);
            expect(directionNeeds(after)).to.equal(['search']);
            const pageAfter = await server.inject('/docs');
            expect(pageAfter.headers.etag).to.not.equal(pageBefore.headers.etag);
        }
        finally {
            await server.stop();
        }

        expect(server.app.services.policyStore.listenerCount('reloaded')).to.equal(0);
    });
});

describe('openApiDocument()', () => {

    let server: Server;

    before(async () => {

        server = await testServer();
    });

    after(() => server.stop());

    it('knows the errors of every gateway policy', () => {

        expect(Object.keys(policyErrors).sort()).to.equal(Object.keys(gatewayPolicies).sort());
    });

    it('takes the responses, extra error codes and error texts a route declares in plugins.docs', () => {

        const { policyStore, config } = server.app.services;
        const bare = Hapi.server();
        bare.route({
            method: 'POST',
            path: '/api/v1/uploads/{id}',
            handler: () => null,
            options: {
                auth: false,
                validate: { params: Joi.object({ id: Joi.string() }) },
                plugins: { docs: { responses: { 302: { description: 'Elsewhere.', headers: { Location: { $ref: '#/components/headers/Location' } } } }, errors: ['quota_exceeded'], errorTexts: { not_found: 'No such upload.' } } }
            }
        });

        const context = { gateway: { routeGroups: [] }, authSchemes: gatewayParts.authSchemes, scopes: policyStore.current().scopes, publicBaseUrl: config.publicBaseUrl, title: 't', version: '1', description: 'd', routeGroup: 'family-api', addedFields: () => ({}), livingPersons: livingPersonsPolicyOf(policyStore.current()) };
        const gateway = { routeGroups: [{ name: 'family-api', paths: ['/api/v1'], public_paths: [], plugins: [], auth: { scheme: 'api-key', config: {} }, policies: [] }] };
        const { responses } = openApiDocument(bare.table(), { ...context, gateway }).paths['/api/v1/uploads/{id}'].post;
        expect(Object.keys(responses)).to.equal(['302', '400', '404', '413']);
        expect(responses['302']).to.equal({ description: 'Elsewhere.', headers: { Location: { $ref: '#/components/headers/Location' }, 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } } });
        expect((responses['413'].content!['application/json'].schema as any).allOf[1].properties.code.enum).to.equal(['quota_exceeded']);
        expect(responses['404'].description).to.equal('`not_found`: No such upload.');
        expect(responses['400'].description).to.equal('`invalid_request`: Bad query, body, field, sort key, filter, format or cursor; the message names the problem.');
    });

    it('documents a route outside the route groups when it declares plugins.docs, and only a public one', () => {

        const { policyStore, config } = server.app.services;
        const bare = Hapi.server();
        bare.auth.scheme('anyone', () => ({ authenticate: (_request, h) => h.authenticated({ credentials: {} }) }));
        bare.auth.strategy('session', 'anyone');
        bare.route([
            { method: 'GET', path: '/status', handler: () => null, options: { auth: false } },
            {
                method: 'GET',
                path: '/downloads/{name}',
                handler: () => null,
                options: { auth: false, plugins: { docs: { responses: { 200: { description: 'The file.' } } } } }
            }
        ]);

        const context = { gateway: { routeGroups: [] }, authSchemes: gatewayParts.authSchemes, scopes: policyStore.current().scopes, publicBaseUrl: config.publicBaseUrl, title: 't', version: '1', description: 'd', routeGroup: 'family-api', addedFields: () => ({}), livingPersons: livingPersonsPolicyOf(policyStore.current()) };
        const { paths } = openApiDocument(bare.table(), context);
        expect(Object.keys(paths)).to.equal(['/downloads/{name}']);
        expect(paths['/downloads/{name}'].get.security).to.equal([]);
        expect(Object.keys(paths['/downloads/{name}'].get.responses)).to.equal(['200', '404']);

        bare.route({
            method: 'GET',
            path: '/account/export',
            handler: () => null,
            options: { auth: 'session', plugins: { docs: { responses: { 200: { description: 'The export.' } } } } }
        });
        expect(() => openApiDocument(bare.table(), context)).to.throw('API reference: GET /account/export declares plugins.docs outside the gateway\'s route groups, where only a public route (auth: false) can be described');
    });

    it('refuses a route group whose policy it cannot document', () => {

        const { policyStore, config } = server.app.services;
        const gateway = { routeGroups: [{ name: 'family-api', paths: ['/api/v1'], public_paths: [], plugins: [], auth: { scheme: 'api-key', config: {} }, policies: [{ name: 'geo-fence', enabled: true, config: {} }] }] };
        const context = { gateway, authSchemes: gatewayParts.authSchemes, scopes: policyStore.current().scopes, publicBaseUrl: config.publicBaseUrl, title: 't', version: '1', description: 'd', routeGroup: 'family-api', addedFields: () => ({}), livingPersons: livingPersonsPolicyOf(policyStore.current()) };

        expect(() => openApiDocument(server.table(), context)).to.throw('API reference: the errors of gateway policy "geo-fence" are not described in plugins/docs/error-codes.ts');
    });
});

describe('GET /api/v2/openapi.json', () => {

    let server: Server;
    let document: OpenApiDocument;

    before(async () => {

        server = await testServer();
        const response = await server.inject('/api/v2/openapi.json');
        expect(response.statusCode, response.payload).to.equal(200);
        document = bodyOf(response);
    });

    after(() => server.stop());

    it('is a valid OpenAPI 3.1 document of only valid JSON Schema 2020-12 schemas', async () => {

        const result = await validate(structuredClone(document) as never);
        expect(result.valid, result.valid ? '' : compileErrors(result)).to.be.true();
        expect(result.warnings).to.equal([]);
        const ajv = new Ajv2020({ strict: false, validateFormats: false });
        for (const schema of schemasIn(document)) {
            expect(ajv.validateSchema(schema), `${JSON.stringify(schema)}: ${ajv.errorsText()}`).to.be.true();
        }
    });

    it('documents every v2 error as problem details, and the signed file URLs\' errors, shared with v1, as Error', () => {

        for (const [path, method, operation] of documentedOperations(document)) {
            for (const [status, response] of Object.entries(operation.responses).filter(([candidate]) => Number(candidate) >= 400)) {
                const expected = path.startsWith('/api/v2') ? 'application/problem+json' : 'application/json';
                expect(Object.keys(response.content!), `${method} ${path} ${status}`).to.equal([expected]);
            }
        }

        expect(document.components.schemas.Problem.required).to.equal(['type', 'title', 'status', 'detail', 'instance', 'code']);
        expect(document.info.description).to.contain('RFC 9457');
    });

    it('declares every field of a real v2 answer of every resource, and of its errors', async () => {

        const closedCheck = documentedAnswers(document, { closed: true });
        const expectDeclared = (path: string, method: string, status: number, response: ServerInjectResponse) => {

            expect(response.statusCode, response.payload).to.equal(status);
            const problem = closedCheck(path, method, status, bodyOf(response));
            expect(problem, problem).to.not.exist();
        };

        const family = await familyWithKey(server);
        for (const name of creatableResources) {
            expectDeclared(`/api/v2/${name}`, 'post', 201, await family.inject('POST', `/api/v2/${name}`, createBody(name)));
        }

        for (const [name, type] of [['gallery', 'png'], ['documents', 'pdf']] as const) {
            const uploaded = await family.inject('POST', `/api/v2/${name}`, { title: 'Upload', original_name: `file.${type}`, file_base64: sampleFile(type).toString('base64') });
            expectDeclared(`/api/v2/${name}`, 'post', 201, uploaded);
        }

        for (const name of resourceNames) {
            const list = await family.inject('GET', `/api/v2/${name}`);
            expectDeclared(`/api/v2/${name}`, 'get', 200, list);
            const [record] = bodyOf(list).data;
            expectDeclared(`/api/v2/${name}/{id}`, 'get', 200, await family.inject('GET', `/api/v2/${name}/${record.id}`));
            expectDeclared(`/api/v2/${name}/{id}`, 'patch', 200, await family.inject('PATCH', `/api/v2/${name}/${record.id}`, createBody(name, { variant: 1, requiredOnly: true })));
            expectDeclared(`/api/v2/${name}/{id}`, 'get', 404, await family.inject('GET', `/api/v2/${name}/${record.id}x`));
            expectDeclared(`/api/v2/${name}`, 'get', 400, await family.inject('GET', `/api/v2/${name}?limit=0`));
            expectDeclared(`/api/v2/${name}`, 'get', 401, await server.inject(`/api/v2/${name}`));
        }

        expectDeclared('/api/v2/all', 'get', 200, await family.inject('GET', '/api/v2/all'));
        const readOnly = await familyWithKey(server, { operations: ['read'] });
        expectDeclared('/api/v2/persons', 'get', 403, await readOnly.inject('GET', '/api/v2/persons?search=x'));
        expectDeclared('/api/v2/openapi.json', 'get', 400, await server.inject('/api/v2/openapi.json?x=1'));
    });
});
