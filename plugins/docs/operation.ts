import type { ScopesPolicy } from '../../gateway/policies/scopes';
import { parameterOperations } from '../../gateway/scopes';
import { errorResponses } from './error-responses';
import { withRequestIdHeaders } from './headers';
import type { NamedSchema } from './json-schema';
import type { OperationObject, ParameterObject, RequestBodyObject } from './openapi-types';
import { redactedParameterNote } from './redacted-records';
import { headerParameter, type RequestHeaderName } from './request-headers';
import type { RouteFacts } from './route-facts';
import { successResponses } from './success-responses';

/** Descriptions of the list query parameters; the joi schema's own description (and its rules by `format`) follows. */
const queryParameterTexts: Readonly<Record<string, string>> = {
    format: 'The response format. Without it, the Accept header picks one by its media type (with q-values; none, or `*/*`, is JSON; 406 `not_acceptable` when it names none of them); with it, Accept is not read. Errors are JSON whatever format is asked for.',
    search: 'Free text: every word must appear in some searchable field, ignoring case and accents (`emile` finds `Émile`, `muller` finds `Müller`). `%` and `_` are plain characters.',
    sort: 'The field to order by (default `created_at`).',
    direction: '`asc` (default) or `desc`; empty values sort last either way.',
    limit: 'How many records: the size of a page of a JSON list, or a cap on what an export (any other `format`) streams.',
    cursor: 'Where the previous page ended: its `meta.next_cursor` (or its `Link` header). Keep the rest of the query the same.'
};

function queryParameterText(parameter: NamedSchema, redactedNote: string | undefined): string | undefined {

    const filtered = /^filter\[(.+)\]$/.exec(parameter.name)?.[1];
    const text = filtered ? `Only records whose \`${filtered}\` is exactly this value.` : queryParameterTexts[parameter.name];
    return [text, redactedNote, parameter.description].filter(Boolean).join(' ') || undefined;
}

function queryParameter(parameter: NamedSchema, scopes: ScopesPolicy, resource: string | undefined): ParameterObject {

    const operations = parameterOperations(parameter.name, scopes);
    const description = queryParameterText(parameter, redactedParameterNote(parameter.name, resource, scopes.aggregate_resource));
    return {
        name: parameter.name,
        in: 'query',
        required: parameter.required,
        ...(description ? { description } : {}),
        schema: parameter.schema,
        ...(operations.length > 0 ? { 'x-required-operations': operations } : {})
    };
}

function pathParameter({ name, description, schema }: NamedSchema): ParameterObject {

    return { name, in: 'path', required: true, ...(description ? { description } : {}), schema };
}

const sizeInWords = (bytes: number) => (bytes % 1048576 === 0 ? `${bytes / 1048576} MiB` : bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`);

function requestBody(body: NonNullable<RouteFacts['body']>): RequestBodyObject {

    return {
        required: body.required,
        ...(body.maxBytes ? { description: `At most ${sizeInWords(body.maxBytes)}.` } : {}),
        content: Object.fromEntries(body.mediaTypes.map((mediaType) => [mediaType, { schema: body.schema }]))
    };
}

const capitalised = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/** `GET /persons/{id}` → `getPersonsById`: unique, because method and path are. */
function operationId(facts: RouteFacts): string {

    const words = facts.relativePath.split('/').filter(Boolean).flatMap((segment) => {

        const parameter = /^\{(\w+)\}$/.exec(segment)?.[1];
        return parameter ? [`By${capitalised(parameter)}`] : segment.split(/[^0-9A-Za-z]+/).filter(Boolean).map(capitalised);
    });

    return facts.method + words.join('');
}

/** What a route says of one of its request headers: whether it requires it, and what it means there. */
function headerOnRoute(facts: RouteFacts, name: RequestHeaderName): { required: boolean; description?: string } {

    const docs = facts.route.settings.plugins?.docs;
    return { required: docs?.requiredHeaders?.includes(name) ?? false, description: docs?.headerTexts?.[name] };
}

/** The OpenAPI operation of one route. */
export function operationOf(facts: RouteFacts, scopes: ScopesPolicy): OperationObject {

    return {
        operationId: operationId(facts),
        ...(facts.description ? { summary: facts.description } : {}),
        ...(facts.notes ? { description: facts.notes } : {}),
        tags: facts.tags,
        // A device token's scope as the requirement's role (OpenAPI 3.1 allows them for any scheme); an API key's scopes are x-required-operations.
        security: facts.securedBy ? [{ [facts.securedBy.name]: facts.gateway?.scope ? [facts.gateway.scope] : [] }] : [],
        parameters: [
            ...facts.params.map(pathParameter),
            ...facts.query.map((parameter) => queryParameter(parameter, scopes, facts.gateway?.resource)),
            ...facts.headers.map((name) => headerParameter(name, headerOnRoute(facts, name)))
        ],
        ...(facts.body ? { requestBody: requestBody(facts.body) } : {}),
        responses: withRequestIdHeaders({ ...successResponses(facts, scopes.aggregate_resource), ...errorResponses(facts) }),
        ...(facts.gateway?.resource !== undefined && facts.gateway.operation !== undefined ? { 'x-resource': facts.gateway.resource, 'x-required-operations': [facts.gateway.operation] } : {})
    };
}
