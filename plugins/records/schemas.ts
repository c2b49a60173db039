import Joi from 'joi';

import { fieldNamesWhere, isWritable, type ResourceDeclaration } from '../../models/resources';
import { fieldSchema } from './field-schemas';

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

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** List query: format, search, sort, direction, filter[field], limit, cursor; anything else is refused. */
export function listQuerySchema(resource: ResourceDeclaration, formats: readonly string[]): Joi.ObjectSchema {

    let schema = Joi.object({
        format: Joi.string().valid(...formats),
        search: Joi.string().trim().min(1).max(200),
        sort: Joi.string().valid(...fieldNamesWhere(resource, (field) => field.sortable)),
        direction: Joi.string().valid('asc', 'desc'),
        limit: Joi.number().integer().min(1).max(maxPageSize).default(defaultPageSize),
        cursor: Joi.string().max(1000)
    });

    for (const name of fieldNamesWhere(resource, (field) => field.filterable)) {
        const field = resource.fields[name];
        schema = schema.pattern(new RegExp(`^filter\\[${escapeRegExp(name)}\\]$`), fieldSchema(field).required());
    }

    const filterable = fieldNamesWhere(resource, (field) => field.filterable).join(', ') || 'none';
    return schema.messages({ 'object.unknown': `{{#label}} is not allowed: the query parameters are format, search, sort, direction, limit, cursor and filter[field] with field one of ${filterable}` });
}

/** The aggregate `all`: search and order apply to every resource; a record limit per resource. */
export function aggregateQuerySchema(formats: readonly string[]): Joi.ObjectSchema {

    return Joi.object({
        format: Joi.string().valid(...formats),
        search: Joi.string().trim().min(1).max(200),
        sort: Joi.string().valid('created_at', 'updated_at'),
        direction: Joi.string().valid('asc', 'desc'),
        limit: Joi.number().integer().min(1).max(maxAggregatePerResource).default(maxAggregatePerResource)
    }).messages({ 'object.unknown': '{{#label}} is not a query parameter of /api/v1/all' });
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
