import type { ApiKeyCredentials } from './credentials';
import type { RateLimitDecision } from './rate-limit/types';

/** What a route declares about itself in `options.plugins.gateway`. */
export interface GatewayRouteMetadata {
    /** A resource name, or the aggregate `all`. */
    resource: string;
    /** The operation the route performs; read routes may need more (see scopes.yaml query_operations). */
    operation: string;
}

declare module '@hapi/hapi' {
    interface PluginSpecificConfiguration {
        gateway?: GatewayRouteMetadata;
    }

    interface RequestApplicationState {
        /** Set by the rate-limit policy; its headers go on every response, errors included. */
        rateLimit?: RateLimitDecision;
    }

    interface AuthCredentials extends Partial<ApiKeyCredentials> {}
}
