import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import type { OpenApiDocument } from '../../../plugins/docs/openapi-types';
import { escapeHtml } from '../../../plugins/docs/html';
import { referencePage } from '../../../plugins/docs/reference-page';
import { testServer } from '../../helpers/server';
import { bodyOf } from '../records/fixtures';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

const hostile = '<img src=x onerror="alert(1)">&\'';

/** The elements the page is made of: anything else would be markup that came from a value. */
const pageElements = new Set(['html', 'head', 'meta', 'title', 'style', 'body', 'header', 'h1', 'h2', 'h3', 'h4', 'small', 'p', 'code', 'a', 'nav', 'ul', 'li',
    'main', 'section', 'article', 'span', 'strong', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'footer']);

const elementsIn = (page: string) => new Set([...page.matchAll(/<([a-zA-Z][\w-]*)/g)].map((match) => match[1].toLowerCase()));

/** Every string value with `suffix` appended, and so every path and property name when `renameKeys` is true. */
function withSuffix(value: unknown, suffix: string, renameKeys: boolean, parentKey = ''): any {

    if (typeof value === 'string') {
        return value + suffix;
    }

    if (Array.isArray(value)) {
        return value.map((item) => withSuffix(item, suffix, renameKeys));
    }

    if (value && typeof value === 'object') {
        const rename = renameKeys && (parentKey === 'paths' || parentKey === 'properties');
        return Object.fromEntries(Object.entries(value).map(([key, item]) => [rename ? key + suffix : key, withSuffix(item, suffix, renameKeys, key)]));
    }

    return value;
}

/** The document with hostile text in every value and name the page shows (the Error schema keeps its property names, which the page looks up). */
function hostileDocument(document: OpenApiDocument): OpenApiDocument {

    const hostileOne = withSuffix(document, hostile, true);
    hostileOne.components.schemas.Error = withSuffix(document.components.schemas.Error, hostile, false);
    return hostileOne;
}

describe('GET /docs', () => {

    let server: Server;
    let document: OpenApiDocument;

    before(async () => {

        server = await testServer();
        document = bodyOf(await server.inject('/api/v1/openapi.json'));
    });

    after(() => server.stop());

    it('shows every operation of the document to anyone, as HTML without script', async () => {

        const response = await server.inject('/docs');
        expect(response.statusCode).to.equal(200);
        expect(response.headers['content-type']).to.equal('text/html; charset=utf-8');
        expect(response.headers['cache-control']).to.contain(['public', 'max-age=300']);

        const page = response.payload;
        expect([...elementsIn(page)].filter((element) => !pageElements.has(element))).to.equal([]);
        expect(page).to.contain('<a href="/api/v1/openapi.json">');
        for (const [path, operations] of Object.entries(document.paths)) {
            for (const [method, operation] of Object.entries(operations)) {
                expect(page, `${method} ${path}`).to.contain(`<article class="operation" id="${operation.operationId}">\n<h3><span class="method ${method}">${method.toUpperCase()}</span><code>${escapeHtml(path)}</code></h3>`);
            }
        }

        for (const name of Object.keys(document.components.schemas).filter((schema) => schema !== 'Error')) {
            expect(page).to.contain(`<h3 id="schema-${name}">${name}</h3>`);
        }

        const unchanged = await server.inject({ url: '/docs', headers: { 'if-none-match': response.headers.etag as string } });
        expect(unchanged.statusCode).to.equal(304);
    });

    it('shows a JSON list\'s limit and how exports differ, which errors carry the RateLimit headers, and only the API\'s error codes', async () => {

        const page = (await server.inject('/docs')).payload;
        expect(page).to.contain('<tr><td><code>limit</code></td><td>query</td><td>integer <span class="muted">(≥ 1; ≤ 100; default 25)</span></td>');
        expect(page).to.contain('When <code>format</code> is <code>csv</code>, <code>html</code>, <code>pdf</code> or <code>gedcom</code>: no default and no maximum.');
        expect(page).to.not.contain('nothing more');
        expect(page).to.contain('Only <code>resource_scope</code> and <code>operation_scope</code> carry the RateLimit headers: the others refuse the request before the rate limit counts it.');
        expect(page).to.contain('<tr id="error-internal_error"><td><code>internal_error</code></td>');
        expect(page).to.contain('<tr id="error-method_not_allowed"><td><code>method_not_allowed</code></td>');
        for (const code of ['unauthorized', 'forbidden', 'conflict']) {
            expect(page).to.not.contain(`<code>${code}</code>`);
        }
    });

    it('escapes every value it shows', () => {

        const page = referencePage(hostileDocument(document), '/api/v1/openapi.json?x="><script>', { pagePath: '/docs', versions: [] });

        expect(elementsIn(page).has('img')).to.be.false();
        expect(page).to.not.contain('<script');
        expect(page).to.not.contain(hostile);
        expect(page.split(escapeHtml(hostile)).length).to.be.above(1000);
    });
});
