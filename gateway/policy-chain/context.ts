import type { Request } from '@hapi/hapi';

import type { ApiKeyCredentials } from '../credentials';
import type { Policies } from '../policies/types';
import type { RateLimitStore } from '../rate-limit/types';
import type { GatewayRouteMetadata } from '../route-metadata';

/** Everything a gateway policy may look at. */
export interface PolicyContext {
    request: Request;
    credentials: ApiKeyCredentials;
    route: GatewayRouteMetadata;
    policies: Policies;
    rateLimits: RateLimitStore;
}

/**
 * A gateway policy, given its own `config` from gateway.yaml: returns when the request may go on,
 * throws a Boom error when it may not. It returns a promise only when it must wait (a Redis round-trip).
 */
export type GatewayPolicy = (context: PolicyContext, config: Readonly<Record<string, unknown>>) => void | Promise<void>;
