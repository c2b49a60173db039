import Joi from 'joi';
import joiToJson from 'joi-to-json';

import type { JsonSchema } from './openapi-types';

/*
 * joi → JSON Schema 2020-12 (OpenAPI 3.1) with joi-to-json, which reads joi's own
 * describe() output. Two of its ways are corrected here:
 * - for a key pattern (`filter[gender]`) it also writes the regex as a property name
 *   ("/^filter\[gender\]$/");
 * - a rule that depends on another key (`when('format', …)`) becomes `oneOf` of its
 *   branches (wrong where both match), and a lone `then: forbidden()` becomes `not: {}`
 *   (no value at all). Such a key is converted here instead: see conditionalKey().
 */

type KeyDescription = Joi.Description & { whens?: { ref?: { path: string[] }; then?: Joi.Description; otherwise?: Joi.Description }[] };

/** `required`, `optional` or `forbidden`, when the schema says. */
export const presenceOf = (description: Joi.Description): string | undefined => (description.flags as { presence?: string } | undefined)?.presence;

/** What a key's rules depend on: the other keys its `when`s name. */
const siblingConditions = (key: KeyDescription) => (key.whens ?? []).filter((when) => when.ref);

/**
 * A key with rules that depend on another key: its own rules, and `anyOf` of the
 * branches that let a value through (a forbidden branch only takes the key away).
 */
function conditionalKey({ whens, ...own }: KeyDescription): JsonSchema {

    const branches = (whens ?? []).flatMap((when) => [when.then, when.otherwise])
        .filter((branch): branch is Joi.Description => branch !== undefined && presenceOf(branch) !== 'forbidden')
        // A branch that only makes the key optional adds no rule: `{}`.
        .map((branch) => (branch.type === 'any' && !branch.rules && !branch.allow ? {} : convert(Joi.build(branch))));

    return { ...convert(Joi.build(own)), ...(branches.length > 0 ? { anyOf: branches } : {}) };
}

function convert(schema: Joi.Schema): JsonSchema {

    const converted: JsonSchema = joiToJson(schema as never, 'open-api-3.1');
    const description = schema.describe() as KeyDescription & { keys?: Record<string, KeyDescription> };
    const properties = converted.properties as Record<string, JsonSchema> | undefined;
    if (!properties) {
        return converted;
    }

    for (const pattern of Object.keys((converted.patternProperties ?? {}) as object)) {
        delete properties[`/${pattern}/`];
    }

    for (const [name, key] of Object.entries(description.keys ?? {})) {
        if (siblingConditions(key).length > 0) {
            properties[name] = conditionalKey(key);
        }
    }

    return converted;
}

/** The JSON Schema of a joi schema. */
export const jsonSchemaOf = (schema: Joi.Schema): JsonSchema => convert(schema);

export interface NamedSchema {
    name: string;
    required: boolean;
    description?: string;
    schema: JsonSchema;
    /** Other keys whose values change this one's rules. */
    dependsOn?: string[];
}

/** The name a key pattern stands for when it matches one literal name (`^filter\[gender\]$`), else undefined. */
export function literalName(pattern: string): string | undefined {

    // Escaped punctuation is literal; an escaped letter or digit is a class (\d) or a back-reference.
    const match = /^\^((?:\\[^0-9A-Za-z]|[^\\.*+?^${}()|[\]])*)\$$/.exec(pattern);
    return match ? match[1].replace(/\\(.)/g, '$1') : undefined;
}

/** A property's description moves to the parameter that carries it. */
function named(name: string, required: boolean, { description, ...schema }: JsonSchema, dependsOn: string[] = []): NamedSchema {

    return { name, required, schema, ...(typeof description === 'string' ? { description } : {}), ...(dependsOn.length > 0 ? { dependsOn } : {}) };
}

/**
 * The keys of a joi object schema (a route's params or query), each with its schema.
 * A key pattern that matches one literal name becomes a key of that name; any other
 * pattern cannot be listed as parameters, so it is refused.
 */
export function keysOf(schema: Joi.Schema, where: string): NamedSchema[] {

    const object = jsonSchemaOf(schema);
    const keys = (schema.describe() as { keys?: Record<string, KeyDescription> }).keys ?? {};
    const dependsOn = (name: string) => (keys[name] ? siblingConditions(keys[name]).map((when) => when.ref!.path.join('.')) : []);
    const required = new Set(object.required as string[] | undefined);
    const parameters = Object.entries((object.properties ?? {}) as Record<string, JsonSchema>)
        .map(([name, property]) => named(name, required.has(name), property, dependsOn(name)));

    for (const [pattern, property] of Object.entries((object.patternProperties ?? {}) as Record<string, JsonSchema>)) {
        const name = literalName(pattern);
        if (name === undefined) {
            throw new Error(`API reference: ${where} accepts keys matching /${pattern}/, which cannot be documented as named parameters`);
        }

        parameters.push(named(name, false, property));
    }

    return parameters;
}
