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
    /** The policy's own `config` from gateway.yaml. */
    config: Record<string, unknown>;
}

/** A gateway policy: returns when the request may go on, throws a Boom error when it may not. */
export type GatewayPolicy = (context: PolicyContext) => void | Promise<void>;
