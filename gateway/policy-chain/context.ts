import type { Request } from '@hapi/hapi';
import Joi from 'joi';

import type { Policies } from '../policies/policy-file';
import type { Principal } from '../principal';
import type { RateLimitStore } from '../rate-limit/types';
import type { GatewayRouteMetadata } from '../route-metadata';

/** Everything a gateway policy may look at. */
export interface PolicyContext {
    request: Request;
    principal: Principal;
    route: GatewayRouteMetadata;
    policies: Policies;
    rateLimits: RateLimitStore;
}

/**
 * A gateway policy: `check` returns when the request may go on, throws a Boom error when it may not,
 * and returns a promise only when it must wait (a Redis round-trip).
 */
export interface GatewayPolicy<Config extends object = object> {
    /**
     * Its `config` in a route group of gateway.yaml, validated when gateway.yaml loads (defaults filled in).
     * Names in the policy files come in through the validation context: `$rateLimitPresetNames`.
     */
    config: Joi.ObjectSchema<Config>;
    /** Counts the request (a rate limit): checking an admitted request again (reverify.ts) leaves it out. */
    countsRequests?: boolean;
    /** What every route of a group running it must declare in `plugins.gateway`: checked at start-up. */
    routeNeeds?: readonly (keyof GatewayRouteMetadata)[];
    check(context: PolicyContext, config: Config): void | Promise<void>;
}

const noConfig = Joi.object<Record<string, never>>({});

/** A policy that takes no config: gateway.yaml refuses any key under its `config`. */
export function withoutConfig(check: GatewayPolicy<Record<string, never>>['check'], routeNeeds?: GatewayPolicy['routeNeeds']): GatewayPolicy<Record<string, never>> {

    return { config: noConfig, check, routeNeeds };
}

