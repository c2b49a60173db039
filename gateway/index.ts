import type { Plugin, Request } from '@hapi/hapi';

import { activeGroups, type ActiveGroup } from './active-groups';
import type { LastUsedTracker } from './last-used';
import type { GatewayConfig, GatewayConfigStore, GatewayParts } from './policies/gateway-file';
import type { PolicyStore } from './policies/policy-store';
import type { Principal } from './principal';
import type { RateLimitStore } from './rate-limit/types';
import { reverifier, type Reverify } from './reverify';
import { routeGroupScheme, routeGroupSchemeName, type RouteGroupAuthOptions } from './route-group-auth';
import { assertRoutesFollowGroups, assertRoutesInScopes } from './route-groups';
import './route-metadata';
import type { UsageMeter } from './usage-meter';

export interface GatewayOptions {
    /** gateway.yaml, reloaded on an edit: a reload brings the groups new verifiers and chains. */
    configStore: GatewayConfigStore;
    parts: GatewayParts;
    lastUsed: LastUsedTracker;
    policyStore: PolicyStore;
    rateLimits: RateLimitStore;
    usageMeter: UsageMeter;
}

/** What the gateway offers other plugins (`server.plugins.gateway`). */
export interface GatewayApi {
    /** Checks a long-lived request (the change stream) again after the auth epoch moved. */
    reverify: Reverify;
    /** The gateway.yaml in force. */
    config: () => GatewayConfig;
}

declare module '@hapi/hapi' {
    interface PluginProperties {
        gateway: GatewayApi;
    }
}

/**
 * The declarative gateway: one auth strategy per route group of gateway.yaml, whose
 * authentication (the group's auth scheme) ends with the group's policy chain.
 */
export const gatewayPlugin: Plugin<GatewayOptions> = {
    name: 'gateway',
    register(server, options) {

        const { configStore, policyStore, rateLimits } = options;
        let groups = activeGroups(configStore.current(), options.parts);
        configStore.on('reloaded', (config) => {

            groups = activeGroups(config, options.parts);
        });

        server.auth.scheme(routeGroupSchemeName, routeGroupScheme);
        const activeGroup = (name: string): ActiveGroup => groups.get(name)!;     // a reload keeps the groups (gateway-file.ts)
        for (const name of groups.keys()) {
            const active = () => activeGroup(name);
            server.auth.strategy(name, routeGroupSchemeName, { active, policyStore, rateLimits } satisfies RouteGroupAuthOptions);
        }

        server.expose({ reverify: reverifier(server, () => groups, policyStore, rateLimits), config: () => configStore.current() } satisfies GatewayApi);

        // Every answered request of a principal, whatever its status, counts towards its family's usage,
        // by route as declared (a HEAD request counts with its GET route).
        const routeLabels = new WeakMap<object, string>();
        server.events.on('response', (request: Request) => {

            const principal = request.auth.credentials as unknown as Principal | null;
            if (groups.has(request.auth.strategy ?? '') && principal?.who) {          // admitted or refused by a policy
                let route = routeLabels.get(request.route);
                if (route === undefined) {
                    route = `${request.route.method.toUpperCase()} ${request.route.path}`;
                    routeLabels.set(request.route, route);
                }

                options.usageMeter.count({
                    keyId: principal.who.id,
                    familyLongId: principal.family.familyLongId,
                    routeGroup: request.auth.strategy!,
                    route,
                    statusCode: request.raw.res.statusCode
                });
            }
        });

        server.ext('onPreStart', () => {

            assertRoutesFollowGroups(server, configStore.current(), options.parts.policies);
            assertRoutesInScopes(server, configStore.current(), policyStore.current(), policyStore.dir);
            policyStore.addCheck((policies) => assertRoutesInScopes(server, configStore.current(), policies, policyStore.dir));
            options.lastUsed.start();
            options.usageMeter.start();
        });

        server.ext('onPostStop', async () => {

            await options.lastUsed.stop();
            await options.usageMeter.stop();
        });
    }
};
