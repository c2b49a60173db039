import type { Server } from '@hapi/hapi';

import Path from 'path';

import { displayName, PolicyError, type PolicyProblem } from './policies/data-file';
import type { GatewayConfig, RouteGroup } from './policies/gateway-file';
import type { Policies } from './policies/policy-file';
import { gatewayPolicies, type GatewayPolicy } from './policy-chain';

/** True when `path` is `prefix` or lies below it (`/api/v1` covers `/api/v1/persons`, not `/api/v10`). */
function isUnder(path: string, prefix: string): boolean {

    return path === prefix || path.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`);
}

/** The route group whose paths hold `path`, if any. */
export function groupOfPath(path: string, config: GatewayConfig): RouteGroup | undefined {

    return config.routeGroups.find((group) => group.paths.some((prefix) => isUnder(path, prefix)));
}

/** Only reading is exempt: any other method at a public path still needs the group's auth. */
function isPublic(method: string, path: string, group: RouteGroup): boolean {

    return method === 'get' && group.public_paths.includes(path);
}

/**
 * Refuses policies under which a route of a group declares a resource or operation scopes.yaml (in `policiesDir`)
 * does not, or a token scope messaging.yaml does not: every request of the route would be refused. Checked at start-up and at every reload of the policies.
 */
export function assertRoutesInScopes(server: Server, config: GatewayConfig, { scopes, messaging }: Policies, policiesDir: string): void {

    const file = displayName(Path.join(policiesDir, 'scopes.yaml'));
    const messagingFile = displayName(Path.join(policiesDir, 'messaging.yaml'));
    const problems: PolicyProblem[] = [];
    for (const route of server.table()) {
        const metadata = route.settings.plugins?.gateway;
        if (!metadata || !groupOfPath(route.path, config)) {
            continue;
        }

        const label = `${route.method.toUpperCase()} ${route.path}`;
        if (metadata.resource !== undefined && metadata.resource !== scopes.aggregate_resource && !scopes.resources.includes(metadata.resource)) {
            problems.push({ file, location: 'resources', problem: `${label} declares resource "${metadata.resource}", which is neither listed here nor the aggregate_resource` });
        }

        if (metadata.operation !== undefined && !scopes.operations.some((declared) => declared.name === metadata.operation)) {
            problems.push({ file, location: 'operations', problem: `${label} declares operation "${metadata.operation}", which is not declared here` });
        }

        if (metadata.scope !== undefined && !messaging.scopes.some((declared) => declared.name === metadata.scope)) {
            problems.push({ file: messagingFile, location: 'scopes', problem: `${label} declares token scope "${metadata.scope}", which is not declared here` });
        }
    }

    if (problems.length > 0) {
        throw new PolicyError(problems);
    }
}

/** What the routes of `group` must declare in `plugins.gateway`: what its policies read (the family API's: resource and operation). */
function routeNeedsOf(group: RouteGroup, policies: Readonly<Record<string, GatewayPolicy>>): string[] {

    return [...new Set(group.policies.flatMap((ref) => policies[ref.name]?.routeNeeds ?? []))];
}

/**
 * Refuses to start when a route under a group's paths does not belong to that
 * group, or does not declare what the group's policies read (the family API's
 * resource and operation, the messaging routes' token scope): no route can be
 * left unauthenticated or unscoped by mistake. A GET at one of the group's
 * `public_paths` is the one deliberate exception.
 */
export function assertRoutesFollowGroups(server: Server, config: GatewayConfig, policies: Readonly<Record<string, GatewayPolicy>> = gatewayPolicies): void {

    const problems: string[] = [];
    for (const route of server.table()) {
        const group = groupOfPath(route.path, config);
        if (!group || isPublic(route.method, route.path, group)) {
            continue;
        }

        const auth = route.settings.auth;
        const strategies = auth ? auth.strategies : [];
        if (!auth || auth.mode !== 'required' || strategies.length !== 1 || strategies[0] !== group.name) {
            problems.push(`${route.method.toUpperCase()} ${route.path} lies under route group "${group.name}" but does not use its auth (auth: '${group.name}')`);
        }

        const metadata = route.settings.plugins?.gateway ?? {};
        const missing = routeNeedsOf(group, policies).filter((need) => !metadata[need as keyof typeof metadata]);
        if (missing.length > 0) {
            problems.push(`${route.method.toUpperCase()} ${route.path} does not declare plugins.gateway.${missing.join(' and .')}`);
        }
    }

    if (problems.length > 0) {
        throw new Error(`Gateway configuration: ${problems.join('; ')}`);
    }
}
