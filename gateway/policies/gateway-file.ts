import Path from 'path';
import Joi from 'joi';

import type { AuthScheme } from '../auth-scheme';
import type { GatewayPolicy } from '../policy-chain/context';
import { displayName, PolicyError, readDataFile, validateDocument } from './data-file';
import type { Policies } from './policy-file';
import type { PolicyStore } from './policy-store';
import { namedList, uniqueStrings } from './schema-parts';
import { WatchedFiles, type PolicyLog } from './watched-files';

/** What gateway.yaml may name: the policies and auth schemes the gateway was given at composition (lib/deployment.ts). */
export interface GatewayParts {
    policies: Readonly<Record<string, GatewayPolicy>>;
    authSchemes: Readonly<Record<string, AuthScheme>>;
}

/** One link of a route group's policy chain, in Kong's plugin shape. */
export interface PolicyRef {
    name: string;
    enabled: boolean;
    /** Validated by the policy's own schema: its options belong to it. */
    config: object;
}

/**
 * The version of the API a route group serves: its name and shape of errors are bound to its routes at
 * start-up; its status, dates and migration notes may change in a reload (deprecating it is an edit).
 */
export interface ApiVersion {
    name: string;
    /** `boom`: v1's JSON with `statusCode`, `error`, `message` and `code`; `problem`: RFC 9457 problem details. */
    error_format: 'boom' | 'problem';
    status: 'current' | 'deprecated';
    /** When it was (or will be) deprecated: the `Deprecation` header (RFC 9745). */
    deprecation?: Date;
    /** When it stops answering: the `Sunset` header (RFC 8594). */
    sunset?: Date;
    /** Where the migration notes are: the `Link` of `rel="deprecation"`. */
    migration_notes?: string;
}

export interface RouteGroup {
    name: string;
    description?: string;
    /** Path prefixes; every route under one of them must belong to this group. */
    paths: string[];
    /** Exact paths under `paths` served without this group's auth (the API reference). */
    public_paths: string[];
    /** The plugins serving the group's routes, registered under its path (the deployment knows their names and checks them). */
    plugins: string[];
    /** The version of the API the group serves, when it serves one. */
    version?: ApiVersion;
    /** The auth scheme and its options, validated by the scheme's own schema. */
    auth: { scheme: string; config: object };
    /** Run in this order for every request of the group. */
    policies: PolicyRef[];
}

export interface GatewayConfig {
    routeGroups: RouteGroup[];
}

/** Context of the gateway.yaml schema: the names a policy's config may refer to in the policy files. */
type GatewayContext = { knownPolicyNames: string[]; rateLimitPresetNames: string[] };

/** The `config` beside `key`: validated by the schema of the policy or scheme `key` names, defaults filled in. */
function configOf(key: string, owners: Readonly<Record<string, { config: Joi.ObjectSchema }>>): Joi.Schema {

    return Joi.when(key, {
        switch: Object.entries(owners).map(([name, owner]) => ({ is: name, then: owner.config.default() })),
        otherwise: Joi.object()             // the name itself is refused
    });
}

const absolutePath = Joi.string().pattern(/^\//).messages({ 'string.pattern.base': '"{#value}" must start with "/"' });

const whenDeprecated = (schema: Joi.Schema) => schema.when('status', { is: 'deprecated', otherwise: Joi.forbidden() });

const versionSchema = Joi.object({
    name: Joi.string().pattern(/^v[1-9][0-9]*$/).required().messages({ 'string.pattern.base': '"{#value}" must be v and a number, as v2' }),
    error_format: Joi.string().valid('boom', 'problem').default('boom'),
    status: Joi.string().valid('current', 'deprecated').default('current'),
    deprecation: whenDeprecated(Joi.date().iso().required()),
    sunset: whenDeprecated(Joi.date().iso()),
    migration_notes: whenDeprecated(Joi.alternatives(Joi.string().uri(), absolutePath).required())
}).custom((version: ApiVersion, helpers) => {

    return version.sunset && version.deprecation && version.sunset <= version.deprecation ? helpers.message({ custom: '"sunset" must come after "deprecation"' }) : version;
});

/** Two route groups serving the same version would answer the same client in two ways. */
const eachVersionOnce: Joi.CustomValidator<RouteGroup[]> = (groups, helpers) => {

    const names = groups.flatMap((group) => (group.version ? [group.version.name] : []));
    const repeated = names.find((name, index) => names.indexOf(name) !== index);
    return repeated ? helpers.message({ custom: `the version "${repeated}" is served by more than one route group` }) : groups;
};

function gatewaySchema(parts: GatewayParts): Joi.ObjectSchema<{ route_groups: RouteGroup[] }> {

    const schemeNames = Object.keys(parts.authSchemes);
    return Joi.object<{ route_groups: RouteGroup[] }, true>({
        route_groups: namedList(Joi.object<RouteGroup, true>({
            name: Joi.string().required(),
            description: Joi.string(),
            paths: uniqueStrings(absolutePath).min(1).required(),
            public_paths: uniqueStrings(absolutePath).default([]),
            plugins: uniqueStrings().default([]),
            version: versionSchema,
            auth: Joi.object<RouteGroup['auth'], true>({
                scheme: Joi.string().required().valid(...schemeNames)
                    .messages({ 'any.only': `"{#value}" is not a known auth scheme (known: ${schemeNames.join(', ')})` }),
                config: configOf('scheme', parts.authSchemes)
            }).required(),
            policies: namedList(Joi.object<PolicyRef, true>({
                name: Joi.string().required().valid(Joi.in('$knownPolicyNames'))
                    .messages({ 'any.only': '"{#value}" is not a known policy (known: {$knownPolicyNames})' }),
                enabled: Joi.boolean().default(true),
                config: configOf('name', parts.policies)
            })).required()
        })).min(1).required()
            .custom(eachVersionOnce)
    });
}

function contextOf(parts: GatewayParts, policies: Policies): GatewayContext {

    return { knownPolicyNames: Object.keys(parts.policies), rateLimitPresetNames: [...policies.rateLimits.keys()] };
}

/** Loads and validates gateway.yaml against `parts`, and the names of `policies` it refers to. Throws a PolicyError. */
export function loadGatewayConfig(file: string, parts: GatewayParts, policies: Policies): GatewayConfig {

    return { routeGroups: readDataFile<{ route_groups: RouteGroup[] }>(file, gatewaySchema(parts), contextOf(parts, policies)).route_groups };
}

/** The routes are bound to the route groups at start-up: a reload may change a group's auth config, policies and version status, nothing else. */
function assertSameRouting(file: string, started: GatewayConfig, reloaded: GatewayConfig): void {

    const routing = (group: RouteGroup) => JSON.stringify([
        group.name, group.paths, group.public_paths, group.plugins, group.auth.scheme, group.version?.name, group.version?.error_format
    ]);
    const problems = reloaded.routeGroups.flatMap((group, index) => (routing(group) === routing(started.routeGroups[index] ?? group) ? [] : [index]))
        .map((index) => ({ file: displayName(file), location: `route_groups[${index}]`, problem: 'its name, paths, public_paths, plugins, auth scheme, version name and error_format change only with a restart' }));
    if (reloaded.routeGroups.length !== started.routeGroups.length) {
        problems.push({ file: displayName(file), location: 'route_groups', problem: 'route groups are added or removed only with a restart' });
    }

    if (problems.length > 0) {
        throw new PolicyError(problems);
    }
}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- the events the class emits, typed, as Node's typings type emitters
export interface GatewayConfigStore {
    on(event: 'reloaded', listener: (config: GatewayConfig) => void): this;
    once(event: 'reloaded', listener: (config: GatewayConfig) => void): this;
}

/**
 * The gateway.yaml in force: reloaded like the policy files (on an edit, on SIGHUP); an invalid edit,
 * or one only a restart could apply, is refused and logged, and the last good one stays in force.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
export class GatewayConfigStore extends WatchedFiles<GatewayConfig> {

    /** Loads `file`; throws a PolicyError, so start-up fails with what is wrong. */
    static open(file: string, log: PolicyLog, parts: GatewayParts, policyStore: PolicyStore): GatewayConfigStore {

        let started: GatewayConfig | undefined;
        const read = () => {

            const config = loadGatewayConfig(file, parts, policyStore.current());
            if (started) {
                assertSameRouting(file, started, config);
            }

            started ??= config;
            return config;
        };

        const store = new GatewayConfigStore(Path.dirname(file), [Path.basename(file)], read, {
            log, tags: ['gateway'], refused: `${displayName(file)} not reloaded, the last good one stays in force`, reloaded: `${displayName(file)} reloaded`
        });

        // A policy reload must leave what gateway.yaml names in the policy files (a rate-limit preset) in place.
        policyStore.addCheck((policies) => validateDocument(displayName(file), { route_groups: store.current().routeGroups }, gatewaySchema(parts), contextOf(parts, policies)));
        return store;
    }
}
