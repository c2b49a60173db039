import Joi from 'joi';

/** Whether `value` has more than `limit` characters (code points): the services' length rule, and the joi rule's below. */
export function hasMoreCharactersThan(value: string, limit: number): boolean {

    // A character is one or two units: a value of at most `limit` units fits; a longer one is counted only until it is over.
    if (value.length <= limit) {
        return false;
    }

    let characters = 0;
    for (const _character of value) {
        if (++characters > limit) {
            return true;
        }
    }

    return false;
}

/**
 * The most UTF-16 units `characters` characters can take (two each, beyond the BMP). HTML's
 * `maxlength` counts units: set to this, it never cuts a value the server would take.
 */
export const utf16UnitsFor = (characters: number): number => 2 * characters;

/*
 * joi's string().max(n) counts UTF-16 units (`value.length`), so n emoji, two units each, were
 * refused. JSON Schema's maxLength, which the API reference shows, and PostgreSQL's VARCHAR(n)
 * count characters (code points): so does this. joi lets no extension replace its own `max`, so
 * the rule is added under that name with a validation of its own: the description, and the
 * reference's `maxLength` converted from it, stay those of `max(n)`.
 */
const countingCharacters = Joi.extend({
    type: 'string',
    base: Joi.string(),
    rules: {
        characterLength: {
            method: false,
            args: [{ name: 'limit', assert: (value: unknown) => Number.isSafeInteger(value) && (value as number) >= 0, message: 'must be a whole number' }],
            validate(value: string, helpers: Joi.CustomHelpers, { limit }: { limit: number }) {

                return hasMoreCharactersThan(value, limit) ? helpers.error('string.max', { limit, value }) : value;
            }
        }
    }
});

/** A joi string of at most `limit` characters (Unicode code points, not UTF-16 units). */
export const stringOfAtMost = (limit: number): Joi.StringSchema => countingCharacters.string().$_addRule({ name: 'max', method: 'characterLength', args: { limit } });
