import type Joi from 'joi';

/*
 * Text from a client is stored as sent, or refused: never changed on the way.
 * - U+0000: SQLite ends SQL text at it, PostgreSQL refuses it in text values, and the two
 *   would not store a value holding one alike.
 * - A lone surrogate (half of a UTF-16 pair, which a JSON escape such as "\ud83d" can carry):
 *   UTF-8 cannot encode it, so both databases would keep U+FFFD in its place.
 */

/** A string holding U+0000 or a lone surrogate. */
export const isUnstorableText = (value: unknown): boolean => typeof value === 'string' && (value.includes('\u0000') || !value.isWellFormed());

/** `schema`, also refusing a string that holds U+0000 or a lone surrogate: a 400 naming the field. */
export function storableText(schema: Joi.StringSchema): Joi.StringSchema {

    return schema
        .custom((value: string, helpers) => {

            if (value.includes('\u0000')) {
                return helpers.error('string.nul');
            }

            return value.isWellFormed() ? value : helpers.error('string.surrogate');
        })
        .messages({
            'string.nul': '{{#label}} must not contain the NUL character (U+0000)',
            'string.surrogate': '{{#label}} must be well-formed Unicode: it holds half of a surrogate pair (U+D800 to U+DFFF)'
        });
}
