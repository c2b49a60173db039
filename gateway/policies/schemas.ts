import Joi from 'joi';

import type { GatewayConfig, PlanPolicy, RateLimitPreset, ScopesPolicy } from './types';

/*
 * The shape of each data file, and the names it may refer to. Unknown keys are errors (joi's
 * default), so a typo is refused rather than silently ignored; a new setting is added here first.
 * The `_format_version` envelope is checked by data-file.ts.
 *
 * Names declared in another file come in through the validation context (`$name`);
 * names declared in the same file are references to it (`/operations`).
 */

/** What each file holds once validated (before load.ts indexes it by name). */
export interface RateLimitsDocument { presets: RateLimitPreset[] }
export interface PlansDocument { plans: PlanPolicy[] }
export type ScopesDocument = ScopesPolicy;
export interface GatewayDocument { route_groups: GatewayConfig['routeGroups'] }

/** Context of plansSchema. */
export type PlansContext = { rateLimitPresetNames: string[] };
/** Context of gatewaySchema: the policies the gateway can run. */
export type GatewayContext = { knownPolicyNames: readonly string[] };

type Entity = Record<string, unknown>;

/** A list of named entities, each name used once. */
function namedList(entity: Joi.ObjectSchema): Joi.ArraySchema {

    return Joi.array().items(entity).unique('name')
        .messages({ 'array.unique': 'the name "{#value.name}" is already used earlier in this list' });
}

/** A list of strings, each used once. */
function uniqueStrings(item: Joi.StringSchema = Joi.string()): Joi.ArraySchema {

    return Joi.array().items(item).unique().messages({ 'array.unique': '"{#value}" is already listed' });
}

/** The names of a list's entities that pass `keep`. The list may itself be invalid: joi reports that on its own. */
function namesIn(list: unknown, keep: (entity: Entity) => boolean = () => true): unknown[] {

    return Array.isArray(list) ? list.filter((entity: Entity | null) => entity !== null && typeof entity === 'object' && keep(entity)).map((entity: Entity) => entity.name) : [];
}

const windowSchema = Joi.object({
    limit: Joi.number().integer().min(1).required(),
    window_seconds: Joi.number().integer().min(1).required()
});

export const rateLimitsSchema = Joi.object({
    presets: namedList(Joi.object({
        name: Joi.string().required(),
        per_key: windowSchema.required(),
        per_family: windowSchema.required()
    })).min(1).required()
});

export const plansSchema = Joi.object({
    plans: namedList(Joi.object({
        name: Joi.string().required(),
        label: Joi.string().required(),
        api_access: Joi.boolean().required(),
        // Upgrading must actually give API access.
        upgrade_to: Joi.string().valid(Joi.in('/plans', { adjust: (plans) => namesIn(plans, (plan) => plan.api_access === true) }))
            .messages({ 'any.only': '"{#value}" is not a plan with api_access: true' }),
        rate_limit: Joi.string().required().valid(Joi.in('$rateLimitPresetNames'))
            .messages({ 'any.only': '"{#value}" is not a preset in rate-limits.yaml' })
    })).min(1).required()
});

const declaredOperation = Joi.string().valid(Joi.in('/operations', { adjust: (operations) => namesIn(operations) }))
    .messages({ 'any.only': '"{#value}" is not an operation declared in operations' });

/** Operations a key may hold without an explicit grant: declared and not `write`. */
function readOnlyOperations(why: string): Joi.ArraySchema {

    return uniqueStrings(Joi.string().valid(Joi.in('/operations', { adjust: (operations) => namesIn(operations, (operation) => operation.write !== true) }))
        .messages({ 'any.only': `"{#value}" is not a declared read-only operation (${why})` }));
}

export const scopesSchema = Joi.object({
    resources: uniqueStrings().min(1).required(),
    aggregate_resource: Joi.string().required(),
    operations: namedList(Joi.object({
        name: Joi.string().required(),
        description: Joi.string().required(),
        write: Joi.boolean().default(false)
    })).min(1).required(),
    query_operations: Joi.array().items(Joi.object({
        parameter: Joi.string(),
        parameter_prefix: Joi.string(),
        operation: declaredOperation.required()
    }).xor('parameter', 'parameter_prefix')).required(),
    legacy_key_operations: readOnlyOperations('legacy keys can never be widened to writes').required(),
    default_key_operations: readOnlyOperations('write operations always need an explicit grant').required()
});

export const gatewaySchema = Joi.object({
    route_groups: namedList(Joi.object({
        name: Joi.string().required(),
        description: Joi.string(),
        paths: uniqueStrings(Joi.string().pattern(/^\//).messages({ 'string.pattern.base': '"{#value}" must start with "/"' })).min(1).required(),
        auth: Joi.object({
            scheme: Joi.string().required()
        }).required(),
        policies: namedList(Joi.object({
            name: Joi.string().required().valid(Joi.in('$knownPolicyNames'))
                .messages({ 'any.only': '"{#value}" is not a known policy (known: {$knownPolicyNames})' }),
            enabled: Joi.boolean().default(true),
            // Any keys: each policy validates its own config when the gateway builds the chain.
            config: Joi.object().unknown().default({})
        })).required()
    })).min(1).required()
});
