import { resourceNames, resources, type ResourceName } from '../../models/resources';
import { headerRefs, withRateLimitHeaders, type HeaderName } from './headers';
import type { JsonSchema, MediaTypeObject, ResponseObject } from './openapi-types';
import { recordSchemaRef } from './record-schemas';
import type { RouteFacts } from './route-facts';

/*
 * The success responses of a route, told from its method, path and declared resource:
 * the shapes of DESIGN.md §4. A route of another shape declares its own
 * (plugins.docs.responses); without that it is documented as a plain 200.
 */

type Shape = 'list' | 'read' | 'create' | 'update' | 'delete';

/** The media type of each `format=` (as plugins/formats sends it, without its charset). */
const formatMediaTypes: Readonly<Record<string, string>> = {
    json: 'application/json',
    csv: 'text/csv',
    html: 'text/html',
    pdf: 'application/pdf',
    gedcom: 'text/vnd.familysearch.gedcom'
};

function shapeOf(facts: RouteFacts, resource: string): Shape | undefined {

    const [last, beforeLast] = facts.path.split('/').reverse();
    const byMethod: Record<string, Shape> | undefined = last === resource ? { get: 'list', post: 'create' }
        : last === '{id}' && beforeLast === resource ? { get: 'read', patch: 'update', delete: 'delete' }
            : undefined;
    return byMethod?.[facts.method];
}

const json = (schema: JsonSchema): Record<string, MediaTypeObject> => ({ 'application/json': { schema } });

const dataOf = (schema: JsonSchema): JsonSchema => ({ type: 'object', required: ['data'], properties: { data: schema } });

const response = (description: string, content: Record<string, MediaTypeObject>, headers: readonly HeaderName[] = []): ResponseObject => ({
    description,
    ...(headers.length > 0 ? { headers: headerRefs(headers) } : {}),
    content
});

/** JSON as `schema`, and every other format the route offers as its media type. */
function formatsContent(facts: RouteFacts, schema: JsonSchema): Record<string, MediaTypeObject> {

    const content = json(schema);
    for (const format of facts.formats) {
        content[formatMediaTypes[format] ?? 'application/octet-stream'] ??= {};
    }

    return content;
}

/** The headers of a list: the next page's link, and a file name for exports. */
function listHeaders(facts: RouteFacts): HeaderName[] {

    return [
        ...(facts.query.some((parameter) => parameter.name === 'cursor') ? ['Link' as const] : []),
        ...(facts.formats.some((format) => format !== 'json') ? ['Content-Disposition' as const] : [])
    ];
}

const listSchema = (name: ResourceName): JsonSchema => ({
    type: 'object',
    required: ['data', 'meta'],
    properties: {
        data: { type: 'array', items: recordSchemaRef(name) },
        meta: {
            type: 'object',
            required: ['resource', 'count', 'next_cursor'],
            properties: {
                resource: { const: name },
                count: { type: 'integer', minimum: 0, description: 'Records on this page.' },
                next_cursor: { type: ['string', 'null'], description: 'Pass as `cursor` for the next page; null on the last page.' }
            }
        }
    }
});

const aggregateSchema = (aggregateResource: string): JsonSchema => ({
    type: 'object',
    required: ['data', 'meta'],
    properties: {
        data: {
            type: 'object',
            description: 'Only the resources in the key\'s scope.',
            properties: Object.fromEntries(resourceNames.map((name) => [name, { type: 'array', items: recordSchemaRef(name) }]))
        },
        meta: {
            type: 'object',
            required: ['resource', 'counts', 'truncated'],
            properties: {
                resource: { const: aggregateResource },
                counts: { type: 'object', additionalProperties: { type: 'integer', minimum: 0 }, description: 'Records returned, by resource.' },
                truncated: { type: 'array', items: { enum: [...resourceNames] }, description: 'Resources that had more records than `limit`.' }
            }
        }
    }
});

const deletedSchema = dataOf({ type: 'object', required: ['id', 'deleted'], properties: { id: { type: 'string' }, deleted: { const: true } } });

const shapes: Record<Shape, (facts: RouteFacts, name: ResourceName) => Record<string, ResponseObject>> = {
    list: (facts, name) => ({ 200: response(`A page of ${name}, in the requested format.`, formatsContent(facts, listSchema(name)), listHeaders(facts)) }),
    read: (_facts, name) => ({
        200: response(`The ${resources[name].singular}.`, json(dataOf(recordSchemaRef(name))), ['ETag']),
        304: { description: `If-None-Match named the ${resources[name].singular}'s ETag, or was \`*\`: your copy is current (no body).`, headers: headerRefs(['ETag']) }
    }),
    create: (_facts, name) => ({ 201: response(`The created ${resources[name].singular}.`, json(dataOf(recordSchemaRef(name))), ['Location', 'ETag', 'Idempotent-Replayed']) }),
    update: (_facts, name) => ({ 200: response(`The ${resources[name].singular} as changed.`, json(dataOf(recordSchemaRef(name))), ['ETag']) }),
    delete: () => ({ 200: response('Deleted; records that referred to it lose the reference.', json(deletedSchema)) })
};

function responsesOf(facts: RouteFacts, aggregateResource: string): Record<string, ResponseObject> {

    const declared = facts.route.settings.plugins?.docs?.responses;
    const resource = facts.gateway?.resource;
    if (declared) {
        return declared;
    }

    if (resource === aggregateResource && facts.method === 'get') {
        return { 200: response('Every resource in the key\'s scope, each searched and ordered alike.', formatsContent(facts, aggregateSchema(aggregateResource)), listHeaders(facts)) };
    }

    const shape = resource && resourceNames.includes(resource as ResourceName) ? shapeOf(facts, resource) : undefined;
    return shape ? shapes[shape](facts, resource as ResourceName) : { 200: { description: facts.description ?? 'Success.' } };
}

export function successResponses(facts: RouteFacts, aggregateResource: string): Record<string, ResponseObject> {

    return Object.fromEntries(Object.entries(responsesOf(facts, aggregateResource)).map(([status, answer]) => [status, withRateLimitHeaders(facts, answer)]));
}
