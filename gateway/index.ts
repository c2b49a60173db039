import type { Plugin, Request, ServerAuthScheme } from '@hapi/hapi';

import type { Models } from '../models';
import type { AuthEpoch } from './auth-epoch';
import type { AuthSchemeName } from './auth-scheme-names';
import type { ApiKeyCredentials } from './credentials';
import type { LastUsedTracker } from './last-used';
import { runPolicyChain } from './policy-chain/run';
import type { GatewayConfig, RouteGroup } from './policies/types';
import type { PolicyStore } from './policies/policy-store';
import type { RateLimitStore } from './rate-limit/types';
import { reverifier, type Reverify } from './reverify';
import { assertRoutesFollowGroups } from './route-groups';
import './route-metadata';
import type { UsageMeter } from './usage-meter';
import { apiKeyScheme, type Admission } from './verify-api-key';

export interface GatewayOptions {
    config: GatewayConfig;
    models: Models;
    pepper: Buffer;
    authEpoch: AuthEpoch;
    lastUsed: LastUsedTracker;
    policyStore: PolicyStore;
    rateLimits: RateLimitStore;
    usageMeter: UsageMeter;
}

/** What the gateway offers other plugins (`server.plugins.gateway`). */
export interface GatewayApi {
    /** Checks a long-lived request (the change stream) again after the auth epoch moved. */
    reverify: Reverify;
}

declare module '@hapi/hapi' {
    interface PluginProperties {
        gateway: GatewayApi;
    }
}

/** Auth schemes the gateway can give a route group, by the name gateway.yaml uses (validated when it loads). */
const authSchemes: Readonly<Record<AuthSchemeName, ServerAuthScheme>> = { 'api-key': apiKeyScheme as ServerAuthScheme };

/**
 * The declarative gateway: one auth strategy per route group of gateway.yaml, whose
 * authentication ends with the group's policy chain.
 */
export const gatewayPlugin: Plugin<GatewayOptions> = {
    name: 'gateway',
    register(server, options) {

        const groups = new Map<string, RouteGroup>(options.config.routeGroups.map((group) => [group.name, group]));

        for (const [name, scheme] of Object.entries(authSchemes)) {
            server.auth.scheme(name, scheme as never);
        }

        for (const group of groups.values()) {
            // loadGatewayConfig() refuses an unknown scheme; a config given in code is checked here.
            if (!Object.hasOwn(authSchemes, group.auth.scheme)) {
                throw new Error(`gateway.yaml: route group "${group.name}" names unknown auth scheme "${group.auth.scheme}"`);
            }

            // The group's policy chain admits a verified key's request, within authentication (verify-api-key.ts says why).
            // A request authenticated already is being checked again (reverify.ts, through server.auth.test()): reverify
            // runs the chain itself, without the policies that count requests, after its response has started.
            const admit: Admission = (request, credentials) => {

                const route = request.route.settings.plugins?.gateway;
                if (route && !request.auth.isAuthenticated) {
                    return runPolicyChain(group, { request, credentials, route, policies: options.policyStore.current(), rateLimits: options.rateLimits });
                }
            };

            server.auth.strategy(group.name, group.auth.scheme, { ...options, admit });
        }

        server.expose({ reverify: reverifier(server, groups, options.policyStore, options.rateLimits) } satisfies GatewayApi);

        // Every answered request of a key, whatever its status, counts towards its family's usage,
        // by route as declared (a HEAD request counts with its GET route).
        const routeLabels = new WeakMap<object, string>();
        server.events.on('response', (request: Request) => {

            const credentials = request.auth.credentials as unknown as ApiKeyCredentials | null;
            if (groups.has(request.auth.strategy ?? '') && credentials?.key) {          // admitted or refused by a policy
                let route = routeLabels.get(request.route);
                if (route === undefined) {
                    route = `${request.route.method.toUpperCase()} ${request.route.path}`;
                    routeLabels.set(request.route, route);
                }

                options.usageMeter.count({
                    keyId: credentials.key.id,
                    familyLongId: credentials.family.familyLongId,
                    routeGroup: request.auth.strategy!,
                    route,
                    statusCode: request.raw.res.statusCode
                });
            }
        });

        server.ext('onPreStart', () => {

            assertRoutesFollowGroups(server, options.config);
            options.lastUsed.start();
            options.usageMeter.start();
        });

        server.ext('onPostStop', async () => {

            await options.lastUsed.stop();
            await options.usageMeter.stop();
        });
    }
};
