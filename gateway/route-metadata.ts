import type { Principal } from './principal';

/**
 * What a route declares about itself in `options.plugins.gateway`: what the policies of its route group read
 * (each policy's `routeNeeds`), which start-up checks it declares.
 */
export interface GatewayRouteMetadata {
    /** A resource name, or the aggregate `all`. */
    resource?: string;
    /** The operation the route performs; read routes may need more (see scopes.yaml query_operations). */
    operation?: string;
    /** The token scope a device token needs for the route (policies/messaging.yaml). */
    scope?: string;
    /**
     * The account-state policy admits the route for a disabled user or a suspended family: the route refuses
     * the work itself and keeps it (the messaging outbox, whose items become `account_disabled` conflicts).
     */
    accountStateInHandler?: boolean;
}

declare module '@hapi/hapi' {
    interface PluginSpecificConfiguration {
        gateway?: GatewayRouteMetadata;
    }

    interface AuthCredentials extends Partial<Principal> {}
}
