import Path from 'path';

import { readDataFile } from './data-file';
import { gatewaySchema, plansSchema, rateLimitsSchema, scopesSchema } from './schemas';
import type { GatewayContext, GatewayDocument, PlansContext, PlansDocument, RateLimitsDocument, ScopesDocument } from './schemas';
import type { GatewayConfig, Policies } from './types';

/** The files loadPolicies() reads from the policies directory. */
export const POLICY_FILE_NAMES: readonly string[] = ['plans.yaml', 'scopes.yaml', 'rate-limits.yaml'];

/**
 * Loads and validates the policy files in `dir`. Throws a PolicyError naming file, path and problem;
 * files are read referenced-first, and the first invalid file stops the load.
 */
export function loadPolicies(dir: string): Policies {

    const rateLimits = readDataFile<RateLimitsDocument>(Path.join(dir, 'rate-limits.yaml'), rateLimitsSchema);
    const scopes = readDataFile<ScopesDocument>(Path.join(dir, 'scopes.yaml'), scopesSchema);
    const plansContext: PlansContext = { rateLimitPresetNames: rateLimits.presets.map((preset) => preset.name) };
    const plans = readDataFile<PlansDocument>(Path.join(dir, 'plans.yaml'), plansSchema, plansContext);

    return {
        plans: byName(plans.plans),
        scopes,
        rateLimits: byName(rateLimits.presets),
        loadedAt: new Date()
    };
}

/** Loads and validates gateway.yaml; every policy it names must be one of `knownPolicyNames`. Throws a PolicyError. */
export function loadGatewayConfig(file: string, knownPolicyNames: readonly string[]): GatewayConfig {

    const context: GatewayContext = { knownPolicyNames };
    const gateway = readDataFile<GatewayDocument>(file, gatewaySchema, context);
    return { routeGroups: gateway.route_groups };
}

function byName<T extends { name: string }>(entities: T[]): Map<string, T> {

    return new Map(entities.map((entity) => [entity.name, entity]));
}
