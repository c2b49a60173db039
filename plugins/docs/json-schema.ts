import Joi from 'joi';
import joiToJson from 'joi-to-json';

import type { JsonSchema } from './openapi-types';
import { inWords } from './words';

/*
 * joi → JSON Schema 2020-12 (OpenAPI 3.1) with joi-to-json, which reads joi's own
 * describe() output. Two of its ways are corrected here:
 * - for a key pattern (`filter[gender]`) it also writes the regex as a property name
 *   ("/^filter\[gender\]$/");
 * - a rule that depends on another key (`when('format', …)`) becomes `oneOf` of its
 *   branches (wrong where both match), and a lone `then: forbidden()` becomes `not: {}`
 *   (no value at all). Such a key is converted here instead: see conditionalKey().
 * And two it leaves out: joi refuses an empty string unless told otherwise, which a key's
 * schema says with `minLength: 1` (see refusesEmptyText()); and how many keys an object takes
 * (`min()`, `max()`, `length()`: an update body names at least one field), which JSON Schema
 * says with `minProperties` / `maxProperties` (see countKeys()).
 */

interface WhenDescription { ref?: { path: string[]; ancestor?: number; type?: string }; is?: Joi.Description; then?: Joi.Description; otherwise?: Joi.Description }
type KeyDescription = Joi.Description & { whens?: WhenDescription[] };
type ObjectDescription = Joi.Description & { keys?: Record<string, KeyDescription>; patterns?: { regex?: string; rule?: KeyDescription }[] };

/** `required`, `optional` or `forbidden`, when the schema says. */
export const presenceOf = (description: Joi.Description): string | undefined => (description.flags as { presence?: string } | undefined)?.presence;

/** Whether a string key refuses `""`, as joi does by default: it does not allow `''`, and takes more than a set of values (an `enum` says it already). */
const refusesEmptyText = (key: KeyDescription): boolean => key.type === 'string' &&
    !(key.allow as unknown[] | undefined)?.includes('') && !(key.flags as { only?: boolean } | undefined)?.only;

/** The other key of the same object that a key's rules depend on (`when('format', { is, … })`): one, or the rules cannot be documented. */
function siblingOf(name: string, key: KeyDescription): string {

    // A sibling reference describes itself by its path alone; others name an ancestor or a context (`$`).
    const siblings = new Set((key.whens ?? []).map(({ ref, is }) => (ref && is && Object.keys(ref).length === 1 && ref.path.length === 1 ? ref.path[0] : undefined)));
    const [sibling] = siblings;
    if (siblings.size !== 1 || sibling === undefined) {
        throw new Error(`API reference: the rules of "${name}" depend on something other than one other key's value, which cannot be documented`);
    }

    return sibling;
}

/** The key's joi schema when its sibling has `value` (undefined: absent): its own rules and those of each branch taken. */
function caseOf({ whens, ...own }: KeyDescription, value: unknown): Joi.Schema {

    return (whens ?? []).reduce((schema, when) => {

        const branch = Joi.build(when.is!).validate(value).error ? when.otherwise : when.then;
        return branch ? schema.concat(Joi.build(branch)) : schema;
    }, Joi.build(own));
}

/** Words for the keywords a case may add, change or drop. */
const keywordWords: Readonly<Record<string, string>> = { minimum: 'minimum', maximum: 'maximum', default: 'default', minLength: 'minimum length', maxLength: 'maximum length', enum: 'one of' };

/** How a case differs from the usual one, in words: `no maximum and no default`, `maximum 5`, `not allowed`. */
function difference(usual: JsonSchema, schema: Joi.Schema): string {

    if (presenceOf(schema.describe()) === 'forbidden') {
        return 'not allowed';
    }

    const other = convert(schema);
    const changes = [...new Set([...Object.keys(usual), ...Object.keys(other)])]
        .filter((keyword) => keyword !== 'description' && JSON.stringify(usual[keyword]) !== JSON.stringify(other[keyword]))
        .map((keyword) => {

            const word = keywordWords[keyword] ?? `\`${keyword}\``;
            return keyword in other ? `${word} ${JSON.stringify(other[keyword])}` : `no ${word}`;
        });

    return inWords(changes, 'and');
}

/**
 * A key whose rules depend on another key. A parameter's JSON Schema sees only its own
 * value, so the schema is the usual case, the one where the other key is absent; each
 * value of the other key that changes the rules is told in the description
 * ("When `format` is `csv` or `pdf`: no maximum and no default."). The other key must
 * take a known set of values (joi `valid()`), else the cases cannot be told.
 */
function conditionalKey(name: string, key: KeyDescription, object: ObjectDescription): JsonSchema {

    const sibling = siblingOf(name, key);
    const siblingKey = object.keys?.[sibling];
    const values = (siblingKey?.flags as { only?: boolean } | undefined)?.only ? siblingKey!.allow as unknown[] : undefined;
    if (!values) {
        throw new Error(`API reference: the rules of "${name}" depend on "${sibling}", which does not take a known set of values, so they cannot be documented`);
    }

    const usual = convert(caseOf(key, undefined));
    const casesByDifference = new Map<string, string[]>();
    for (const value of values) {
        const change = difference(usual, caseOf(key, value));
        if (change) {
            casesByDifference.set(change, [...(casesByDifference.get(change) ?? []), `\`${String(value)}\``]);
        }
    }

    const cases = [...casesByDifference].map(([change, siblingValues]) => `When \`${sibling}\` is ${inWords(siblingValues, 'or')}: ${change}.`);
    const description = [usual.description, ...cases].filter(Boolean).join(' ');
    return { ...usual, ...(description ? { description } : {}) };
}

/** The JSON Schema keywords of joi's rules on an object's number of keys. */
const keyCountKeywords: Readonly<Record<string, readonly string[]>> = { min: ['minProperties'], max: ['maxProperties'], length: ['minProperties', 'maxProperties'] };

/** `minProperties` / `maxProperties` from an object's `min()`, `max()` or `length()`. */
function countKeys(converted: JsonSchema, description: ObjectDescription): void {

    if (description.type !== 'object') {
        return;
    }

    for (const { name, args } of (description.rules ?? []) as { name: string; args?: { limit?: unknown } }[]) {
        for (const keyword of keyCountKeywords[name] ?? []) {
            if (typeof args?.limit === 'number') {
                converted[keyword] = args.limit;
            }
        }
    }
}

function convert(schema: Joi.Schema): JsonSchema {

    const converted: JsonSchema = joiToJson(schema as never, 'open-api-3.1');
    const description = schema.describe() as ObjectDescription;
    countKeys(converted, description);
    const properties = converted.properties as Record<string, JsonSchema> | undefined;
    if (!properties) {
        return converted;
    }

    for (const pattern of Object.keys((converted.patternProperties ?? {}) as object)) {
        delete properties[`/${pattern}/`];
    }

    for (const [name, key] of Object.entries(description.keys ?? {})) {
        if (key.whens) {
            properties[name] = conditionalKey(name, key, description);
        }
    }

    refuseEmptyText(converted, description);
    return converted;
}

/** `minLength: 1` on the keys of an object, named or matched by a pattern, whose joi schema refuses `""` and says no minimum length of its own. */
function refuseEmptyText(converted: JsonSchema, description: ObjectDescription): void {

    const requireACharacter = (schemas: unknown, name: string, key: KeyDescription | undefined) => {

        const byName = (schemas ?? {}) as Record<string, JsonSchema>;
        if (key && refusesEmptyText(key) && byName[name] && byName[name].minLength === undefined) {
            byName[name] = { ...byName[name], minLength: 1 };
        }
    };

    for (const [name, key] of Object.entries(description.keys ?? {})) {
        requireACharacter(converted.properties, name, key);
    }

    for (const { regex, rule } of description.patterns ?? []) {
        requireACharacter(converted.patternProperties, regex?.slice(1, -1) ?? '', rule);      // joi describes `/…/`, joi-to-json keys by what is between
    }
}

/** The JSON Schema of a joi schema. */
export const jsonSchemaOf = (schema: Joi.Schema): JsonSchema => convert(schema);

export interface NamedSchema {
    name: string;
    required: boolean;
    description?: string;
    schema: JsonSchema;
}

/** The name a key pattern stands for when it matches one literal name (`^filter\[gender\]$`), else undefined. */
export function literalName(pattern: string): string | undefined {

    // Escaped punctuation is literal; an escaped letter or digit is a class (\d) or a back-reference.
    const match = /^\^((?:\\[^0-9A-Za-z]|[^\\.*+?^${}()|[\]])*)\$$/.exec(pattern);
    return match ? match[1].replace(/\\(.)/g, '$1') : undefined;
}

/** A property's description moves to the parameter that carries it. */
function named(name: string, required: boolean, { description, ...schema }: JsonSchema): NamedSchema {

    return { name, required, schema, ...(typeof description === 'string' ? { description } : {}) };
}

/**
 * The keys of a joi object schema (a route's params or query), each with its schema.
 * A key pattern that matches one literal name becomes a key of that name; any other
 * pattern cannot be listed as parameters, so it is refused.
 */
export function keysOf(schema: Joi.Schema, where: string): NamedSchema[] {

    const object = jsonSchemaOf(schema);
    const required = new Set(object.required as string[] | undefined);
    const parameters = Object.entries((object.properties ?? {}) as Record<string, JsonSchema>)
        .map(([name, property]) => named(name, required.has(name), property));

    for (const [pattern, property] of Object.entries((object.patternProperties ?? {}) as Record<string, JsonSchema>)) {
        const name = literalName(pattern);
        if (name === undefined) {
            throw new Error(`API reference: ${where} accepts keys matching /${pattern}/, which cannot be documented as named parameters`);
        }

        parameters.push(named(name, false, property));
    }

    return parameters;
}
