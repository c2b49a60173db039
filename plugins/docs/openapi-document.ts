import type { RequestRoute } from '@hapi/hapi';

import type { AuthScheme, AuthSchemeDocs } from '../../gateway/auth-scheme';
import type { ApiVersion, GatewayConfig, RouteGroup } from '../../gateway/policies/gateway-file';
import type { ScopesPolicy } from '../../gateway/policies/scopes';
import { groupOfPath } from '../../gateway/route-groups';
import type { ErrorCode } from '../../lib/errors';
import type { LivingPersonsPolicy } from '../../lib/privacy/living-persons';
import { resourceNames, resources, type ResourceName } from '../../models/resources';
import { errorSchema, problemSchema, routeErrorCodes } from './error-responses';
import { responseHeaders } from './headers';
import type { JsonSchema, OpenApiDocument } from './openapi-types';
import { operationOf } from './operation';
import { recordSchemas } from './record-schemas';
import { livingPersonsIntroduction } from './redacted-records';
import { routeFacts } from './route-facts';
import { authSchemeOf } from './security';

export interface ReferenceContext {
    gateway: GatewayConfig;
    /** The route group documented: routes under another group's paths belong to another reference. */
    routeGroup: string;
    /** The auth schemes the gateway was given, which describe themselves. */
    authSchemes: Readonly<Record<string, AuthScheme>>;
    scopes: ScopesPolicy;
    publicBaseUrl: string;
    title: string;
    version: string;
    description: string;
    /** Where the reference page describes an error code (`<page>#error-`): a problem details answer's `type` is it and the code. Needed by a version with problem details. */
    problemTypeBase?: string;
    /** The fields other plugins add to a resource's records (the records plugin's extensions). */
    addedFields: (resource: ResourceName) => Readonly<Record<string, JsonSchema>>;
    /** Who counts as living, and what a redacted key reads instead (policies/privacy.yaml). */
    livingPersons: LivingPersonsPolicy;
}

const introduction = (authScheme: AuthSchemeDocs | undefined, errorFormat: ApiVersion['error_format'], livingPersons: LivingPersonsPolicy | undefined) => [
    ...(authScheme ? [authScheme.introduction ?? authScheme.securityScheme.description] : []),
    ...(livingPersons ? [livingPersonsIntroduction(livingPersons)] : []),
    errorFormat === 'problem'
        ? 'Errors are RFC 9457 problem details (`application/problem+json`) with a stable `code` (schema `Problem`).'
        : 'Errors are JSON with a stable `code` (schema `Error`).',
    'Every response carries `X-Request-Id`: quote it when reporting a problem.',
    'This document is generated when the server starts, from its routes, their validation and the resource declarations.'
].join(' ');

const methodOrder = ['get', 'post', 'put', 'patch', 'delete'];

function byPathThenMethod(one: RequestRoute, other: RequestRoute): number {

    return one.path.localeCompare(other.path) || methodOrder.indexOf(one.method) - methodOrder.indexOf(other.method);
}

/**
 * Whether the reference of `routeGroup` documents `route`, and under which route group: every route
 * under the group's paths, and a route outside every group that declares `plugins.docs` (the signed
 * file URLs), which must then be public: outside the groups there is no key scheme to describe. The
 * rest (the hosted site, /docs, the health probes) is for people and operators, not API clients.
 */
function documentedUnder(route: RequestRoute, gateway: GatewayConfig, routeGroup: string): { group?: RouteGroup } | undefined {

    const group = groupOfPath(route.path, gateway);
    if (route.method === '*' || (group && group.name !== routeGroup) || (!group && !route.settings.plugins?.docs)) {
        return undefined;
    }

    // A route outside the groups belongs to the references of the groups its plugin serves (the signed file URLs to the family API's).
    const plugin = route.realm.plugin;
    if (!group && plugin && !gateway.routeGroups.find((candidate) => candidate.name === routeGroup)?.plugins.includes(plugin)) {
        return undefined;
    }

    if (!group && route.settings.auth) {
        throw new Error(`API reference: ${route.method.toUpperCase()} ${route.path} declares plugins.docs outside the gateway's route groups, where only a public route (auth: false) can be described`);
    }

    return { group };
}

/**
 * The OpenAPI 3.1 document of every route under a gateway route group's paths and of the
 * public routes that declare themselves (plugins.docs), generated from the routes themselves
 * (server.table()) and the resource declarations. Tags follow the declaration order of the
 * resources, then first use.
 */
export function openApiDocument(routes: RequestRoute[], context: ReferenceContext): OpenApiDocument {

    const paths: OpenApiDocument['paths'] = {};
    const tags = new Set<string>(resourceNames);
    const answered = new Set<ErrorCode>();
    const declaredSchemas: Record<string, JsonSchema> = {};
    for (const route of [...routes].sort(byPathThenMethod)) {
        const documented = documentedUnder(route, context.gateway, context.routeGroup);
        if (!documented) {
            continue;
        }

        const facts = routeFacts(route, documented.group, context.authSchemes);
        (paths[facts.path] ??= {})[facts.method] = operationOf(facts, context.scopes);
        facts.tags.forEach((tag) => tags.add(tag));
        routeErrorCodes(facts).forEach((code) => answered.add(code));
        Object.assign(declaredSchemas, route.settings.plugins?.docs?.schemas);
    }

    const group = context.gateway.routeGroups.find((candidate) => candidate.name === context.routeGroup);
    const errorFormat = group?.version?.error_format ?? 'boom';
    const authScheme = group && authSchemeOf(group, context.authSchemes);
    const servesRecords = !group || group.plugins.includes('records');
    const used = new Set(Object.values(paths).flatMap((operations) => Object.values(operations).flatMap((operation) => operation.tags)));

    return {
        openapi: '3.1.0',
        info: { title: context.title, version: context.version, description: `${context.description}\n\n${introduction(authScheme, errorFormat, servesRecords ? context.livingPersons : undefined)}` },
        servers: [{ url: context.publicBaseUrl }],
        tags: [...tags].filter((name) => used.has(name)).map((name) => ({ name, ...(name in resources ? { description: resources[name as ResourceName].description } : {}) })),
        paths,
        components: {
            schemas: {
                Error: errorSchema(answered),
                ...(errorFormat === 'problem' ? { Problem: problemSchema(answered, context.problemTypeBase!) } : {}),
                // The records of the family API, in a reference of a group it serves; the named schemas other routes declare.
                ...(servesRecords ? recordSchemas(context.addedFields, context.livingPersons) : {}),
                ...declaredSchemas
            },
            headers: responseHeaders,
            securitySchemes: group && authScheme ? { [group.name]: authScheme.securityScheme } : {}
        }
    };
}
