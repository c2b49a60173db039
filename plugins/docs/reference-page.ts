import { html, prose, SafeHtml } from './html';
import type { JsonSchema, OpenApiDocument, OperationObject, ParameterObject, ResponseObject } from './openapi-types';
import { referenceStyle } from './reference-style';

/*
 * /docs: the OpenAPI document as a page people read. Server-rendered, no script,
 * one inline stylesheet; every value from the document goes through `html`, which escapes it.
 */

// Our own constant stylesheet: CSS is raw text in <style>, where entities would not be decoded.
const style = new SafeHtml(referenceStyle);

const schemaName = (ref: string) => ref.split('/').pop() ?? ref;
const anchor = (prefix: string, name: string) => `${prefix}-${name.replace(/[^0-9A-Za-z_-]/g, '-')}`;

/** A schema in a few words: its type or reference, allowed values and limits. */
function schemaSummary(schema: JsonSchema | undefined): SafeHtml {

    if (!schema) {
        return html``;
    }

    if (typeof schema.$ref === 'string') {
        const name = schemaName(schema.$ref);
        return html`<a href="#${anchor('schema', name)}">${name}</a>`;
    }

    const type = ([] as unknown[]).concat(schema.type ?? []).join(' or ');
    const items = schema.items as JsonSchema | undefined;
    const facts: (SafeHtml | string)[] = [];
    if (Array.isArray(schema.enum)) {
        facts.push(html`one of ${schema.enum.map((value, index) => html`${index > 0 ? ', ' : ''}<code>${String(value)}</code>`)}`);
    }

    if (schema.const !== undefined) {
        facts.push(html`always <code>${JSON.stringify(schema.const)}</code>`);
    }

    if (typeof schema.pattern === 'string') {
        facts.push(html`pattern <code>${schema.pattern}</code>`);
    }

    for (const [keyword, words] of [['minLength', 'at least %s characters'], ['maxLength', 'at most %s characters'], ['minimum', '≥ %s'], ['maximum', '≤ %s'], ['default', 'default %s']] as const) {
        if (schema[keyword] !== undefined) {
            facts.push(words.replace('%s', String(schema[keyword])));
        }
    }

    if (Array.isArray(schema.anyOf)) {
        const branches = schema.anyOf as JsonSchema[];
        facts.push(html`either ${branches.map((branch, index) => html`${index > 0 ? ' or ' : ''}${Object.keys(branch).length === 0 ? 'nothing more' : schemaSummary(branch)}`)}`);
    }

    return html`${type === 'array' && items ? html`array of ${schemaSummary(items)}` : type}${facts.length > 0 ? html` <span class="muted">(${facts.map((fact, index) => html`${index > 0 ? '; ' : ''}${fact}`)})</span>` : ''}`;
}

function parametersTable(parameters: ParameterObject[]): SafeHtml {

    if (parameters.length === 0) {
        return html``;
    }

    return html`<h4>Parameters</h4>
<table><thead><tr><th>name</th><th>in</th><th>type</th><th>required</th><th>needs</th><th>meaning</th></tr></thead><tbody>
${parameters.map((parameter) => html`<tr><td><code>${parameter.name}</code></td><td>${parameter.in}</td><td>${schemaSummary(parameter.schema)}</td><td>${parameter.required ? 'yes' : ''}</td><td>${(parameter['x-required-operations'] ?? []).join(', ')}</td><td>${prose(parameter.description)}</td></tr>\n`)}
</tbody></table>`;
}

/** The properties of an object schema, one row each. */
function propertiesTable(schema: JsonSchema): SafeHtml {

    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set(schema.required as string[] | undefined);
    return html`<table><thead><tr><th>field</th><th>type</th><th>required</th><th>meaning</th></tr></thead><tbody>
${Object.entries(properties).map(([name, property]) => html`<tr><td><code>${name}</code></td><td>${schemaSummary(property)}${property.readOnly ? html` <span class="muted">read-only</span>` : ''}</td><td>${required.has(name) ? 'yes' : ''}</td><td>${prose(property.description as string | undefined)}</td></tr>\n`)}
</tbody></table>`;
}

function requestBodySection(operation: OperationObject): SafeHtml {

    const body = operation.requestBody;
    if (!body) {
        return html``;
    }

    const [mediaType, { schema }] = Object.entries(body.content)[0];
    return html`<h4>Body <span class="muted">(${mediaType}${body.required ? ', required' : ''})</span></h4>
${body.description ? html`<p>${prose(body.description)}</p>` : ''}${schema?.additionalProperties === false ? html`<p class="muted">Other fields are refused.</p>` : ''}${schema ? propertiesTable(schema) : ''}`;
}

function responsesTable(responses: Record<string, ResponseObject>): SafeHtml {

    return html`<h4>Responses</h4>
<table><thead><tr><th>status</th><th>meaning</th><th>content</th><th>headers</th></tr></thead><tbody>
${Object.entries(responses).map(([status, response]) => html`<tr><td>${status}</td><td>${prose(response.description)}</td><td>${Object.keys(response.content ?? {}).join(', ')}</td><td>${Object.keys(response.headers ?? {}).join(', ')}</td></tr>\n`)}
</tbody></table>`;
}

/** What a request of the operation needs: nothing, an API key's operation scopes, or a device token's scope. */
function needsOf(operation: OperationObject): SafeHtml | string {

    const needs = operation['x-required-operations'];
    const [scope] = Object.values(operation.security[0] ?? {}).flat();
    if (operation.security.length === 0) {
        return 'No API key needed.';
    }

    return scope ? html`Access token with scope <code>${scope}</code>.`
        : html`API key with ${needs ? html`operation <code>${needs.join(', ')}</code>` : 'access'}${operation['x-resource'] ? html` on <code>${operation['x-resource']}</code>` : ''}.`;
}

function operationArticle(path: string, method: string, operation: OperationObject): SafeHtml {

    return html`<article class="operation" id="${operation.operationId}">
<h3><span class="method ${method}">${method.toUpperCase()}</span><code>${path}</code></h3>
${operation.summary ? html`<p>${operation.summary}</p>` : ''}${operation.description ? html`<p>${prose(operation.description)}</p>` : ''}
<p class="needs">${needsOf(operation)}</p>
${parametersTable(operation.parameters)}${requestBodySection(operation)}${responsesTable(operation.responses)}
</article>`;
}

function tagSections(document: OpenApiDocument): SafeHtml[] {

    return document.tags.map((tag) => html`<section id="${anchor('tag', tag.name)}"><h2>${tag.name}</h2>
${tag.description ? html`<p>${prose(tag.description)}</p>` : ''}
${Object.entries(document.paths).flatMap(([path, operations]) => Object.entries(operations)
        .filter(([, operation]) => operation.tags.includes(tag.name))
        .map(([method, operation]) => operationArticle(path, method, operation)))}
</section>`);
}

/** The errors: the shape of this version's (problem details, or the Error schema), and a row per code that a problem's `type` links to. */
function errorsSection(document: OpenApiDocument): SafeHtml {

    const error = document.components.schemas.Problem ?? document.components.schemas.Error;
    const code = ((error.properties ?? {}) as Record<string, JsonSchema>).code;
    const meanings = (code['x-enumDescriptions'] ?? {}) as Record<string, string>;
    return html`<section id="errors"><h2>Errors</h2>
<p>${prose(error.description as string)}</p>
${propertiesTable(error)}
<table><thead><tr><th>code</th><th>status and meaning</th></tr></thead><tbody>
${(code.enum as string[]).map((value) => html`<tr id="error-${value}"><td><code>${value}</code></td><td>${prose(meanings[value])}</td></tr>\n`)}
</tbody></table></section>`;
}

function headersSection(document: OpenApiDocument): SafeHtml {

    return html`<section id="headers"><h2>Response headers</h2>
<table><thead><tr><th>header</th><th>meaning</th></tr></thead><tbody>
${Object.entries(document.components.headers).map(([name, header]) => html`<tr><td><code>${name}</code></td><td>${prose(header.description)}</td></tr>\n`)}
</tbody></table></section>`;
}

function schemasSection(document: OpenApiDocument): SafeHtml {

    const records = Object.entries(document.components.schemas).filter(([name]) => name !== 'Error');
    return html`<section id="records"><h2>Records</h2>
<p>Every list, read, create and update returns records of these shapes. Fields marked read-only are set by the server.</p>
${records.map(([name, schema]) => html`<h3 id="${anchor('schema', name)}">${name}</h3>\n<p>${prose(schema.description as string | undefined)}</p>\n${propertiesTable(schema)}`)}
</section>`;
}

/** A version of the API whose reference is a page: the switch between versions links to it. */
export interface VersionPage {
    name: string;
    pagePath: string;
    /** `current` or `deprecated`, as gateway.yaml said when the service started. */
    status: string;
}

/** Links to the page of each version of the API, this one's marked; nothing when there is one version only. */
function versionSwitch(pagePath: string, versions: readonly VersionPage[]): SafeHtml | string {

    if (versions.length < 2) {
        return '';
    }

    const label = (version: VersionPage) => `${version.name}${version.status === 'deprecated' ? ' (deprecated)' : ''}`;
    return html`<p class="versions">API versions: ${versions.map((version, index) => html`${index > 0 ? ' · ' : ''}${version.pagePath === pagePath
        ? html`<strong aria-current="page">${label(version)}</strong>`
        : html`<a href="${version.pagePath}">${label(version)}</a>`}`)}</p>\n`;
}

/** The reference page of `document`; `documentUrl` is where the machine-readable document is served, `versions` where the other versions' pages are. */
export function referencePage(document: OpenApiDocument, documentUrl: string, { pagePath, versions }: { pagePath: string; versions: readonly VersionPage[] }): string {

    const { info } = document;
    const security = Object.entries(document.components.securitySchemes);
    const contents: [string, string][] = [['authentication', 'Authentication'], ['errors', 'Errors'], ['headers', 'Response headers'],
        ...document.tags.map((tag): [string, string] => [anchor('tag', tag.name), tag.name]), ['records', 'Records']];

    return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${info.title} reference</title>
<style>${style}</style>
</head>
<body>
<header>
<h1>${info.title} <small>version ${info.version}</small></h1>
${versionSwitch(pagePath, versions)}${info.description.split('\n\n').map((paragraph) => html`<p>${prose(paragraph)}</p>\n`)}
<p>Base URL: ${document.servers.map((server) => html`<code>${server.url}</code>`)} · The same reference as an <a href="${documentUrl}">OpenAPI ${document.openapi} document</a>.</p>
</header>
<nav><ul>${contents.map(([id, label]) => html`<li><a href="#${id}">${label}</a></li>`)}</ul></nav>
<main>
<section id="authentication"><h2>Authentication</h2>
${security.map(([name, scheme]) => html`<p><strong>${name}</strong> (${scheme.type} ${scheme.scheme}): ${prose(scheme.description)}</p>\n`)}
</section>
${errorsSection(document)}
${headersSection(document)}
${tagSections(document)}
${schemasSection(document)}
</main>
<footer>Generated from the server's routes and resource declarations when it started.</footer>
</body>
</html>
`.markup;
}
