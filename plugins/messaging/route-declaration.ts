import type { PluginSpecificConfiguration, RouteOptions, ServerRoute } from '@hapi/hapi';

import { messagingSchemas } from './response-docs';

/** The token scopes the messaging routes need (policies/messaging.yaml). */
export type MessagingScope = 'messages:read' | 'messages:write';

/** What every messaging route declares: its route group's auth, the token scope the gateway checks, its tag and its reference. */
export type RouteDeclaration = (scope: MessagingScope, docs?: NonNullable<PluginSpecificConfiguration['docs']>) => Pick<RouteOptions, 'auth' | 'plugins' | 'tags'>;

export function routeDeclaration(routeGroup: string, tag: string): RouteDeclaration {

    return (scope, docs) => ({ auth: routeGroup, tags: ['api', tag], plugins: { gateway: { scope }, docs: { ...docs, schemas: messagingSchemas } } });
}

/** A write route: what every write shares is added here (its Idempotency-Key). */
export function writeRoute(route: ServerRoute): ServerRoute {

    return route;
}
