import Joi from 'joi';
import Cron from 'node-cron';

/*
 * Parts the policy files' schemas share. Unknown keys are errors (joi's default), so a typo is
 * refused rather than silently ignored; a new setting is added to its file's schema first. The
 * `_format_version` envelope is checked by data-file.ts.
 *
 * Names declared in another file, or in the code, come in through the validation context
 * (`$name`); names declared in the same file are references to it (`/operations`).
 */

type Entity = Record<string, unknown>;

/** A list of named entities, each name used once. */
export function namedList(entity: Joi.ObjectSchema): Joi.ArraySchema {

    return Joi.array().items(entity).unique('name')
        .messages({ 'array.unique': 'the name "{#value.name}" is already used earlier in this list' });
}

/** A list of strings, each used once. */
export function uniqueStrings(item: Joi.StringSchema = Joi.string()): Joi.ArraySchema {

    return Joi.array().items(item).unique().messages({ 'array.unique': '"{#value}" is already listed' });
}

/** The names of a list's entities that pass `keep`. The list may itself be invalid: joi reports that on its own. */
export function namesIn(list: unknown, keep: (entity: Entity) => boolean = () => true): unknown[] {

    return Array.isArray(list) ? list.filter((entity: Entity | null) => entity !== null && typeof entity === 'object' && keep(entity)).map((entity: Entity) => entity.name) : [];
}

/** Every name of `$contextKey` must be in the list (of names, or of named entities): a reload that dropped one would leave what uses it without. */
export function listsEvery(contextKey: string, what: string): Joi.CustomValidator<(string | { name: string })[]> {

    return (list, helpers) => {

        const listed = new Set(list.map((entry) => (typeof entry === 'string' ? entry : entry.name)));
        const missing = (helpers.prefs.context![contextKey] as readonly string[]).filter((name) => !listed.has(name));
        return missing.length === 0 ? list : helpers.error('list.missing', { missing: missing.join(', '), what });
    };
}

export const listsEveryMessage = { 'list.missing': 'must list every {#what}; missing: {#missing}' };

export interface RateLimitWindow {
    limit: number;
    window_seconds: number;
}

/*
 * A window lasts at most a day, the longest API gateways commonly offer per policy: each counter is kept, in memory
 * or in Redis, for its whole window (past about 10^14 s Redis even refuses the expiry, and every request fails).
 * A limit has at most 15 digits, the largest integer RateLimit-Policy's `q` can carry (RFC 9651).
 */
export const windowSchema = Joi.object<RateLimitWindow, true>({
    limit: Joi.number().integer().min(1).max(999_999_999_999_999).required(),
    window_seconds: Joi.number().integer().min(1).max(86_400).required()
});

export const cronExpression = Joi.string().custom((value: string, helpers) => (Cron.validate(value) ? value : helpers.error('cron.invalid')))
    .messages({ 'cron.invalid': '"{#value}" is not a cron expression (e.g. "17 3 * * *": daily at 03:17)' });
