/*
 * The policy data as the service uses it, after loading and validation (schemas.ts
 * declares the file shapes these come from). Field names follow the YAML files.
 */

export interface RateLimitWindow {
    limit: number;
    window_seconds: number;
}

export interface RateLimitPreset {
    name: string;
    per_key: RateLimitWindow;
    /** Shared by all of a family's keys together. */
    per_family: RateLimitWindow;
}

export interface PlanPolicy {
    name: string;
    label: string;
    api_access: boolean;
    /** The plan to suggest to a family whose plan has no API access. */
    upgrade_to?: string;
    /** Name of a preset in rate-limits.yaml. */
    rate_limit: string;
}

export interface OperationPolicy {
    name: string;
    description: string;
    write: boolean;
}

/** A query parameter (or parameter prefix, e.g. `filter[`) that adds an operation a read request needs. */
export interface QueryOperation {
    parameter?: string;
    parameter_prefix?: string;
    operation: string;
}

export interface ScopesPolicy {
    resources: string[];
    aggregate_resource: string;
    operations: OperationPolicy[];
    query_operations: QueryOperation[];
    legacy_key_operations: string[];
    default_key_operations: string[];
}

export interface Policies {
    plans: Map<string, PlanPolicy>;
    scopes: ScopesPolicy;
    rateLimits: Map<string, RateLimitPreset>;
    loadedAt: Date;
}

/** One link of a route group's policy chain, in Kong's plugin shape. */
export interface PolicyRef {
    name: string;
    enabled: boolean;
    /** Validated by the policy itself: its options belong to it. */
    config: Record<string, unknown>;
}

export interface RouteGroup {
    name: string;
    description?: string;
    /** Path prefixes; every route under one of them must belong to this group. */
    paths: string[];
    auth: { scheme: string };
    /** Run in this order for every request of the group. */
    policies: PolicyRef[];
}

export interface GatewayConfig {
    routeGroups: RouteGroup[];
}
