import type { RequestRoute } from '@hapi/hapi';
import type Joi from 'joi';

import type { AuthScheme, AuthSchemeDocs } from '../../gateway/auth-scheme';
import type { ApiVersion, RouteGroup } from '../../gateway/policies/gateway-file';
import type { GatewayRouteMetadata } from '../../gateway/route-metadata';
import { jsonSchemaOf, keysOf, presenceOf, type NamedSchema } from './json-schema';
import type { JsonSchema } from './openapi-types';
import type { RequestHeaderName } from './request-headers';
import { authSchemeOf } from './security';

/** What the reference needs to know about one route, read from its hapi settings. */
export interface RouteFacts {
    method: string;
    /** The OpenAPI path template (`{id}`; hapi's `{id?}` and `{path*}` lose their marks). */
    path: string;
    /** The path below the route group's prefix, for operation ids (`/persons/{id}`). */
    relativePath: string;
    description?: string;
    notes?: string;
    tags: string[];
    /** The gateway route group whose key the route needs; none at a group's public paths or outside the groups. */
    securedBy?: RouteGroup;
    /** The auth scheme of `securedBy`, as the reference describes it. */
    authScheme?: AuthSchemeDocs;
    gateway?: GatewayRouteMetadata;
    /** The shape of its errors: that of the version of the API the route lies under (gateway.yaml), v1's outside every version. */
    errorFormat: ApiVersion['error_format'];
    /** The route validates something, so a bad request is a 400. */
    validated: boolean;
    params: NamedSchema[];
    query: NamedSchema[];
    /** The request headers the route declares its handler reads (plugins.docs.headers). */
    headers: readonly RequestHeaderName[];
    body?: { schema: JsonSchema; required: boolean; mediaTypes: string[]; maxBytes?: number };
    /** The values the `format` query parameter takes; empty when it has none. */
    formats: string[];
    route: RequestRoute;
}

const bodyMethods = new Set(['post', 'put', 'patch']);

/** A parameter of a hapi path: `{id}`, optional `{id?}`, or multi-segment `{path*}` / `{path*2}`. */
const pathParameter = /\{(\w+)[?*]?\d*\}/g;

function templateNames(path: string): string[] {

    return [...path.matchAll(pathParameter)].map((match) => match[1]);
}

/** Path parameters from the params schema, and a plain string for any the schema does not name. */
function pathParameters(route: RequestRoute, where: string): NamedSchema[] {

    const params = route.settings.validate?.params;
    const declared = params ? keysOf(params as Joi.Schema, where) : [];
    return templateNames(route.path).map((name) => ({ ...(declared.find((key) => key.name === name) ?? { name, schema: { type: 'string' } }), required: true }));
}

function requestBody(route: RequestRoute): RouteFacts['body'] {

    const payload = route.settings.validate?.payload;
    if (!bodyMethods.has(route.method) || !payload) {
        return undefined;
    }

    const schema = payload as Joi.Schema;
    const allow = route.settings.payload?.allow;
    return {
        schema: jsonSchemaOf(schema),
        required: presenceOf(schema.describe()) === 'required',
        mediaTypes: allow === undefined ? ['application/json'] : ([] as string[]).concat(allow),
        maxBytes: route.settings.payload?.maxBytes
    };
}

/** The facts of `route`, which lies under `group`'s paths, or outside every group when there is none. */
export function routeFacts(route: RequestRoute, group: RouteGroup | undefined, authSchemes: Readonly<Record<string, AuthScheme>>): RouteFacts {

    const where = `${route.method.toUpperCase()} ${route.path}`;
    const settings = route.settings;
    const validate = settings.validate ?? {};
    const query = validate.query ? keysOf(validate.query as Joi.Schema, where) : [];
    const prefix = group?.paths.find((candidate) => route.path.startsWith(candidate)) ?? '';
    const path = route.path.replace(pathParameter, '{$1}');
    const notes = ([] as string[]).concat(settings.notes ?? []).join('\n\n');
    const format = query.find((parameter) => parameter.name === 'format');
    const auth = settings.auth || undefined;
    const secured = group !== undefined && (auth?.strategies ?? []).includes(group.name);

    return {
        method: route.method,
        path,
        relativePath: path.slice(prefix.replace(/\/$/, '').length),
        ...(settings.description ? { description: settings.description } : {}),
        ...(notes ? { notes } : {}),
        tags: ([] as string[]).concat(settings.tags ?? []).filter((tag) => tag !== 'api'),
        ...(secured ? { securedBy: group, authScheme: authSchemeOf(group, authSchemes) } : {}),
        gateway: settings.plugins?.gateway,
        errorFormat: group?.version?.error_format ?? 'boom',
        validated: Boolean(validate.params || validate.query || validate.payload),
        params: pathParameters(route, where),
        query,
        headers: settings.plugins?.docs?.headers ?? [],
        body: requestBody(route),
        formats: (format?.schema.enum as string[] | undefined) ?? [],
        route
    };
}
