import type { Principal } from './principal';

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

    interface AuthCredentials extends Partial<Principal> {}
}
