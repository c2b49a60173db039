import type Joi from 'joi';

/*
 * U+0000 never reaches the database from a client: SQLite ends SQL text at it, PostgreSQL
 * refuses it in text values, and the two would not store a value holding one alike.
 */

/** A string holding U+0000. */
export const holdsNul = (value: unknown): boolean => typeof value === 'string' && value.includes('\u0000');

/** `schema`, also refusing a string that holds U+0000: a 400 naming the field. */
export function withoutNul(schema: Joi.StringSchema): Joi.StringSchema {

    return schema
        .custom((value: string, helpers) => (holdsNul(value) ? helpers.error('string.nul') : value))
        .messages({ 'string.nul': '{{#label}} must not contain the NUL character (U+0000)' });
}
