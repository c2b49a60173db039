/*
 * Hostile input on every operation of the API reference (GET /api/v1/openapi.json, so a route added
 * later is swept too): each parameter (query, path, header) and each body field in turn takes
 * values a careless or malicious client sends (wrong types, empty, huge, NUL, a lone surrogate,
 * prototype names, broken percent escapes...), then whole bodies of the wrong shape or media type and
 * queries of the wrong shape. Starting from a valid request each time, so every value reaches the
 * check meant to refuse it. Whatever the answer, it is never a 5xx, and it is one the reference
 * documents for that operation: its status is listed and its JSON body matches the schema.
 * Rate limits are lifted: the sweep sends thousands of requests with one key.
 */
import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server, ServerInjectResponse } from '@hapi/hapi';

import { resourceNames } from '../../../models/resources';
import type { OpenApiDocument, OperationObject } from '../../../plugins/docs/openapi-types';
import { documentedAnswers, type AnswerCheck } from '../../helpers/documented-answers';
import { policiesWithoutLimits } from '../../helpers/policy-files';
import { familyWithKey, testServer, type FamilyFixture } from '../../helpers/server';
import { pathOf, sampleFile } from '../files/fixtures';
import { bodyOf, createBody, creatableResources, dataOf, type Body } from './fixtures';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

/** Text a parameter or a field may be given. */
const hostileText = [
    '', ' ', '-1', '0', '1.5', '1e309', 'NaN', 'null', 'true', '[]', '{}', '9'.repeat(400), 'a'.repeat(5000),
    '\u0000', 'a\u0000b', '\ud800', '\u202e', '\uFEFF', '９', '../../etc/passwd', '<script>', '\' OR 1=1 --', '"', '\\', '%', '*',
    '__proto__', 'constructor', 'toString', '2024-02-30', '0000-00-00', '-000001-01-01', '9999-12-31T23:59:60Z', 'per_', 'per_' + 'x'.repeat(20)
];

/**
 * JSON values a body field may be given: text that breaks something other than a parameter (most of the
 * text above is valid for a text field, and each accepted value is a write), and other types.
 */
const hostileValues: unknown[] = [
    '', ' ', '-1', '1.5', '9'.repeat(400), 'a'.repeat(5000), '\u0000', '\ud800', '\u202e', '<script>', '__proto__', '2024-02-30', '-000001-01-01', 'per_', 'x'.repeat(100_000),
    null, true, false, 0, -1, 0.5, 1e308, -1e308, 2 ** 53 + 1, [], [1], ['a', 'a'], {}, { a: 1 }, JSON.parse('{"__proto__":{"polluted":1}}')
];

/** Whole bodies of the wrong shape, and bodies of other media types. */
const hostileBodies: { payload: unknown; contentType?: string }[] = [
    { payload: null, contentType: 'application/json' }, { payload: '[]', contentType: 'application/json' }, { payload: '"text"', contentType: 'application/json' },
    { payload: '5', contentType: 'application/json' }, { payload: '{"first_name":', contentType: 'application/json' }, { payload: '{"a":1,"a":2}', contentType: 'application/json' },
    { payload: '{"__proto__":{"polluted":1}}', contentType: 'application/json' }, { payload: '\uFEFF{}', contentType: 'application/json' },
    { payload: 'a=b', contentType: 'application/x-www-form-urlencoded' }, { payload: 'a', contentType: 'text/plain' }, { payload: '<a/>', contentType: 'application/xml' },
    { payload: '--x\r\n\r\n--x--', contentType: 'multipart/form-data; boundary=x' }, { payload: '{}', contentType: 'application/json; charset=latin1' }, { payload: '{}', contentType: 'garbage' }
];

/** Queries of a list's wrong shape: repeated, nested, bracketed, broken. */
const hostileQueries = [
    'filter[nope]=1', 'filter[]=1', 'filter=1', 'filter[a][b]=1', 'sort=', 'sort=-', 'sort=__proto__', 'direction=up', 'limit=0', 'limit=100000', 'limit=1.5',
    'limit=1&limit=2', 'cursor=abc', `cursor=${'A'.repeat(2000)}`, 'format=xml', 'format=csv&format=pdf', `search=${'%25'.repeat(100)}`, 'search=%zz',
    'a[b][c][d]=1', '__proto__[polluted]=1', 'constructor[prototype][polluted]=1', '=1', '&&&', `x${'&y'.repeat(500)}`
];

/** Operations the sweep leaves out, each with the reason. */
const notSwept: Record<string, string> = {
    'get /api/v1/events/stream': 'a change stream that is admitted answers 200 and never ends; test/plugins/stream/ covers what it refuses',
    'get /api/v1/openapi.json': 'it takes no input; test/plugins/docs/openapi.ts covers its refusal of any query'
};

/** Deletes last, so the other operations of a part find their records; the signed file URL before the gallery record goes. */
const parts = ['files', 'all', ...resourceNames];
const sweepOrder = (method: string) => (method === 'delete' ? 1 : 0);

// JSON and one other: an error stays JSON whatever format was asked (the others render through the same path).
const formats = ['json', 'csv'];

interface SweepContext {
    server: Server;
    family: FamilyFixture;
    document: OpenApiDocument;
    documented: AnswerCheck;
    /** An existing record's id per resource, for the `{id}` of its paths. */
    ids: Record<string, string>;
    /** A signed file URL's path (`/files/{token}`). */
    signedFilePath: string;
}

/** A valid body of an operation that takes one: the sweep changes one thing at a time from it. */
function validBody(resource: string): Body {

    if (creatableResources.includes(resource as never)) {
        return createBody(resource as never);
    }

    const file = resource === 'gallery' ? sampleFile('png') : sampleFile('pdf');
    return { title: 'Upload', file_base64: file.toString('base64'), original_name: resource === 'gallery' ? 'photo.png' : 'letter.pdf' };
}

/** `path` with its parameters filled from `values`, or the resource's record id. */
function filledPath(path: string, context: SweepContext, values: Record<string, string> = {}): string {

    if (path === '/files/{token}' && values.token === undefined) {
        return context.signedFilePath;
    }

    const resource = path.split('/')[3];
    return path.replace(/\{(\w+)\}/g, (_, name: string) => encodeText(values[name] ?? context.ids[resource] ?? 'x'));
}

/** Percent-encoded as a client would; a lone surrogate, which encodeURIComponent refuses, as its raw UTF-8 bytes. */
function encodeText(text: string): string {

    try {
        return encodeURIComponent(text);
    }
    catch {
        return text.split('').map((unit) => (unit.charCodeAt(0) >= 0xd800 && unit.charCodeAt(0) <= 0xdfff ? '%ED%A0%80' : encodeURIComponent(unit))).join('');
    }
}

/** Sends every hostile variation of one operation; returns the problems found (none expected) and how many requests were sent. */
async function sweep(context: SweepContext, path: string, method: string, operation: OperationObject): Promise<{ problems: string[]; sent: number }> {

    const problems: string[] = [];
    let sent = 0;
    const resource = path.split('/')[3];
    const body = operation.requestBody ? validBody(resource) : undefined;
    const send = async (what: string, url: string, payload: unknown = body, headers: Record<string, string> = {}) => {

        ++sent;
        const response: ServerInjectResponse = await context.family.inject(method.toUpperCase(), url, payload, headers);
        const problem = response.statusCode >= 500 ? `${response.statusCode}: ${response.payload.slice(0, 300)}` : answerProblem(context, path, method, response);
        if (problem) {
            problems.push(`${method.toUpperCase()} ${what}: ${problem}`);
        }
    };

    const base = filledPath(path, context);
    await send(base, base);
    for (const parameter of operation.parameters) {
        for (const text of hostileText) {
            const shown = JSON.stringify(text).slice(0, 40);
            if (parameter.in === 'query') {
                await send(`${base}?${parameter.name}=${shown}`, `${base}?${parameter.name}=${encodeText(text)}`);
            }
            else if (parameter.in === 'path') {
                if (text !== '') {          // an empty one makes the collection's path, another operation
                    const url = filledPath(path, context, { [parameter.name]: text });
                    await send(url, url);
                }
            }
            else if (/^[\t\x20-\x7e\x80-\xff]*$/.test(text)) {          // what an HTTP header can carry at all
                await send(`${base} with ${parameter.name}: ${shown}`, base, body, { [parameter.name]: text });
            }
        }

        if (parameter.in === 'query') {
            await send(`${base}?${parameter.name} twice`, `${base}?${parameter.name}=1&${parameter.name}=2`);
        }
    }

    if (method === 'get' && operation.parameters.some((parameter) => parameter.name === 'format')) {
        for (const query of hostileQueries) {
            for (const format of formats) {
                await send(`${base}?${query}&format=${format}`, `${base}?${query}&format=${format}`);
            }
        }
    }

    const fields = Object.keys(operation.requestBody?.content['application/json']?.schema?.properties as object ?? {});
    for (const field of fields) {
        for (const value of hostileValues) {
            await send(`${base} with ${field}: ${JSON.stringify(value).slice(0, 40)}`, base, { ...body, [field]: value });
        }
    }

    if (operation.requestBody) {
        for (const { payload, contentType } of hostileBodies) {
            await send(`${base} with body ${String(payload).slice(0, 40)} (${contentType})`, base, payload, contentType ? { 'content-type': contentType } : {});
        }
    }

    return { problems, sent };
}

/** What is wrong with an answer the reference should document, or undefined. */
function answerProblem(context: SweepContext, path: string, method: string, response: ServerInjectResponse): string | undefined {

    const contentType = String(response.headers['content-type'] ?? '');
    if (contentType.startsWith('application/json')) {
        return context.documented(path, method, response.statusCode, bodyOf(response));
    }

    const documented = context.document.paths[path][method].responses[String(response.statusCode)];
    if (!documented) {
        return `status ${response.statusCode} is not documented`;
    }

    const mediaType = contentType.split(';')[0];
    const mediaTypes = Object.keys(documented.content ?? {});
    return mediaType === '' || mediaTypes.includes(mediaType) || mediaTypes.includes('*/*') ? undefined : `${response.statusCode} as ${mediaType}, which is not documented`;
}

describe('Hostile input on every operation of the API reference', () => {

    const context = {} as SweepContext;
    const swept = new Set<string>();

    before(async () => {

        context.server = await testServer({ policiesDir: policiesWithoutLimits() });
        context.family = await familyWithKey(context.server);
        const response = await context.server.inject('/api/v1/openapi.json');
        context.document = bodyOf(response);
        context.documented = documentedAnswers(context.document);
        context.ids = {};
        for (const resource of resourceNames) {
            const created = await context.family.inject('POST', `/api/v1/${resource}`, validBody(resource));
            context.ids[resource] = dataOf(created, 201).id;
        }

        const photo = dataOf(await context.family.inject('GET', `/api/v1/gallery/${context.ids.gallery}`));
        context.signedFilePath = pathOf(photo.url);
    });

    after(() => context.server.stop());

    // One test per part of the API, each with more than the suite's timeout: persons, the largest,
    // is slow on PostgreSQL, the more so on a loaded machine.
    for (const part of parts) {
        it(`answers as documented, and never with a 5xx: ${part}`, { timeout: 90_000 }, async () => {

            const problems: string[] = [];
            let sent = 0;
            const operations = Object.entries(context.document.paths)
                .filter(([path]) => path.startsWith(`/api/v1/${part}`) || path.startsWith(`/${part}/`))
                .flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ path, method, operation })))
                .filter(({ path, method }) => !Object.hasOwn(notSwept, `${method} ${path}`))
                .sort((a, b) => sweepOrder(a.method) - sweepOrder(b.method));
            for (const { path, method, operation } of operations) {
                const result = await sweep(context, path, method, operation);
                problems.push(...result.problems);
                sent += result.sent;
                swept.add(`${method} ${path}`);
            }

            expect(sent).to.be.above(100);
            expect(problems.slice(0, 10).map((problem) => problem.replace(/\/files\/[\w.-]{40,}/g, '/files/<token>')), `${problems.length} problems`).to.equal([]);
        });
    }

    it('swept every operation of the reference but those left out with a reason', () => {

        const operations = Object.entries(context.document.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method} ${path}`));
        const expected = operations.filter((name) => !Object.hasOwn(notSwept, name));
        expect([...swept].sort()).to.equal(expected.sort());
        expect(Object.keys(notSwept).every((name) => operations.includes(name))).to.be.true();
    });
});
