import Path from 'path';

import { planNames } from '../../models/family';
import { resourceNames, resources } from '../../models/resources';
import { readDataFile } from './data-file';
import { filesSchema, gatewaySchema, plansSchema, rateLimitsSchema, recordsSchema, scopesSchema, siteSchema, streamSchema, usageSchema, webhooksSchema } from './schemas';
import type { FilesContext, FilesDocument, GatewayContext, GatewayDocument, PlansContext, PlansDocument, RateLimitsDocument, RecordsDocument, ScopesDocument, SiteDocument, StreamDocument, UsageDocument, WebhooksDocument } from './schemas';
import type { GatewayConfig, Policies } from './types';

/** The files loadPolicies() reads from the policies directory. */
export const POLICY_FILE_NAMES: readonly string[] = ['plans.yaml', 'scopes.yaml', 'rate-limits.yaml', 'files.yaml', 'usage.yaml', 'records.yaml', 'site.yaml', 'webhooks.yaml', 'stream.yaml'];

/**
 * Loads and validates the policy files in `dir`. Throws a PolicyError naming file, path and problem;
 * files are read referenced-first, and the first invalid file stops the load.
 */
export function loadPolicies(dir: string): Policies {

    const rateLimits = readDataFile<RateLimitsDocument>(Path.join(dir, 'rate-limits.yaml'), rateLimitsSchema);
    const scopes = readDataFile<ScopesDocument>(Path.join(dir, 'scopes.yaml'), scopesSchema);
    const plansContext: PlansContext = { rateLimitPresetNames: rateLimits.presets.map((preset) => preset.name), familyPlanNames: planNames };
    const plans = readDataFile<PlansDocument>(Path.join(dir, 'plans.yaml'), plansSchema, plansContext);
    const filesContext: FilesContext = { fileResourceNames: resourceNames.filter((name) => resources[name].storesFile) };
    const files = readDataFile<FilesDocument>(Path.join(dir, 'files.yaml'), filesSchema, filesContext);
    const usage = readDataFile<UsageDocument>(Path.join(dir, 'usage.yaml'), usageSchema);
    const records = readDataFile<RecordsDocument>(Path.join(dir, 'records.yaml'), recordsSchema);
    const site = readDataFile<SiteDocument>(Path.join(dir, 'site.yaml'), siteSchema);
    const webhooks = readDataFile<WebhooksDocument>(Path.join(dir, 'webhooks.yaml'), webhooksSchema);
    const stream = readDataFile<StreamDocument>(Path.join(dir, 'stream.yaml'), streamSchema);

    return {
        plans: byName(plans.plans),
        scopes,
        files,
        usage,
        records,
        site,
        webhooks,
        stream,
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
