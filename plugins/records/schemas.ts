import Joi from 'joi';

import { fieldSchema, filterSchema } from '../../lib/field-schemas';
import { storableText } from '../../lib/storable-text';
import { stringOfAtMost } from '../../lib/text-length';
import { fieldNamesWhere, isWritable, type ResourceDeclaration } from '../../models/resources';
import { longestCursorLength } from './cursor';

export const maxPageSize = 100;
export const defaultPageSize = 25;
export const maxAggregatePerResource = 1000;

/** Create body: writable fields only; required ones must be there; unknown fields are refused. */
export function createPayloadSchema(resource: ResourceDeclaration): Joi.ObjectSchema {

    const keys: Record<string, Joi.Schema> = {};
    for (const [name, field] of Object.entries(resource.fields).filter(([, declared]) => isWritable(declared))) {
        const schema = fieldSchema(field);
        keys[name] = field.required ? schema.required() : field.default !== undefined ? schema.default(field.default) : schema.allow(null);
    }

    return Joi.object(keys).required().label(`${resource.singular} body`);
}

/** Update body: any writable fields, at least one; required fields cannot be cleared. */
export function updatePayloadSchema(resource: ResourceDeclaration): Joi.ObjectSchema {

    const keys: Record<string, Joi.Schema> = {};
    for (const [name, field] of Object.entries(resource.fields).filter(([, declared]) => isWritable(declared))) {
        const schema = fieldSchema(field);
        keys[name] = field.required || field.default !== undefined ? schema : schema.allow(null);
    }

    return Joi.object(keys).min(1).required().label(`${resource.singular} changes`);
}

export const maxSearchWords = 8;

/** `search`: words that must all appear. Refused beyond a few words rather than searched in part: each word is one more scan of every record's search text. */
const searchParameter = storableText(stringOfAtMost(200).trim().min(1)
    .custom((text: string, helpers) => (text.split(/\s+/).length > maxSearchWords ? helpers.error('search.words') : text))
    .messages({ 'search.words': `{{#label}} has more than ${maxSearchWords} words` })
    .description(`At most ${maxSearchWords} words.`));

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Any format but JSON: the whole list as one streamed file. */
const anExport = Joi.string().invalid('json').required();

/**
 * `limit`: the page size of a JSON list (with its default and maximum), or an optional cap on
 * what an export streams, which has no page and so no maximum.
 */
const limitParameter = (maxPage: number, defaultPage: number) => Joi.number().integer().min(1).when('format', {
    is: anExport,
    then: Joi.optional(),
    otherwise: Joi.number().max(maxPage).default(defaultPage)
});

/** List query: format, search, sort, direction, filter[field], limit, cursor; anything else is refused. */
export function listQuerySchema(resource: ResourceDeclaration, formats: readonly string[]): Joi.ObjectSchema {

    let schema = Joi.object({
        format: Joi.string().valid(...formats),
        search: searchParameter,
        sort: Joi.string().valid(...fieldNamesWhere(resource, (field) => field.sortable)),
        direction: Joi.string().valid('asc', 'desc'),
        limit: limitParameter(maxPageSize, defaultPageSize),
        cursor: Joi.string().max(longestCursorLength(resource)).when('format', { is: anExport, then: Joi.forbidden() })
            .messages({ 'any.unknown': '{{#label}} pages JSON lists only: an export streams the whole list (limit caps it)' })
    });

    for (const name of fieldNamesWhere(resource, (field) => field.filterable)) {
        const field = resource.fields[name];
        schema = schema.pattern(new RegExp(`^filter\\[${escapeRegExp(name)}\\]$`), filterSchema(field).required());
    }

    const filterable = fieldNamesWhere(resource, (field) => field.filterable).join(', ') || 'none';
    return schema.messages({ 'object.unknown': `{{#label}} is not allowed: the query parameters are format, search, sort, direction, limit, cursor and filter[field] with field one of ${filterable}` });
}

/** The aggregate `all` at `path`: search and order apply to every resource; a record limit per resource (no maximum for exports). */
export function aggregateQuerySchema(formats: readonly string[], path: string): Joi.ObjectSchema {

    return Joi.object({
        format: Joi.string().valid(...formats),
        search: searchParameter,
        sort: Joi.string().valid('created_at', 'updated_at'),
        direction: Joi.string().valid('asc', 'desc'),
        limit: limitParameter(maxAggregatePerResource, maxAggregatePerResource)
    }).messages({ 'object.unknown': `{{#label}} is not a query parameter of ${path}` });
}

/** The filters of a validated list query, by field name. */
export function filtersOf(query: Record<string, unknown>): Record<string, unknown> {

    const filters: Record<string, unknown> = {};
    for (const [parameter, value] of Object.entries(query)) {
        const match = /^filter\[(.+)\]$/.exec(parameter);
        if (match) {
            filters[match[1]] = value;
        }
    }

    return filters;
}
