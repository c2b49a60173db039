import Crypto from 'crypto';
import Fs from 'fs';
import Path from 'path';

import type { Plugin, Request, ResponseToolkit } from '@hapi/hapi';
import Joi from 'joi';

import type { AuthScheme } from '../../gateway/auth-scheme';
import type { GatewayConfig } from '../../gateway/policies/gateway-file';
import type { PolicyStore } from '../../gateway/policies/policy-store';
import { projectRoot } from '../../lib/config';
import { livingPersonsPolicyOf } from '../../lib/privacy/living-persons';
import type { Log } from '../../lib/logger';
import { unmodified } from '../../lib/unmodified';
import { openApiDocument } from './openapi-document';
import { referencePage, type VersionPage } from './reference-page';
import './route-metadata';

export interface DocsOptions {
    /** The gateway's route groups: the reference documents every route under the paths of its own. */
    gateway: GatewayConfig;
    /** The route group documented, and the path its routes are under: the document is `<prefix>/openapi.json`. */
    routeGroup: string;
    prefix: string;
    /** Where the same reference is a page for people (`/docs`). */
    pagePath: string;
    /** Every version of the API documented, and where its page is: the page links to the others. */
    versions: readonly VersionPage[];
    /** The auth schemes the gateway was given, which describe themselves. */
    authSchemes: Readonly<Record<string, AuthScheme>>;
    /** The policies (scopes.yaml's query_operations, the aggregate resource, privacy.yaml's rule): the reference follows their reloads. */
    policyStore: PolicyStore;
    publicBaseUrl: string;
    log: Log;
}

const optionsSchema = Joi.object({
    gateway: Joi.object({ routeGroups: Joi.array().required() }).unknown().required(),
    routeGroup: Joi.string().required(),
    prefix: Joi.string().pattern(/^\/.*[^/]$/).required(),
    pagePath: Joi.string().pattern(/^\//).required(),
    versions: Joi.array().items(Joi.object({ name: Joi.string().required(), pagePath: Joi.string().pattern(/^\//).required(), status: Joi.string().required() })).required(),
    authSchemes: Joi.object().required(),
    policyStore: Joi.object().required(),
    publicBaseUrl: Joi.string().uri().required(),
    log: Joi.function().required()
});

const cacheSeconds = 300;

/** Where the reference of the route group under `prefix` is: listed in the group's public_paths, readable without a key. */
export const documentPathOf = (prefix: string) => `${prefix}/openapi.json`;

interface Served {
    body: string;
    type: string;
    etag: string;
}

const served = (body: string, type: string): Served => ({ body, type, etag: Crypto.createHash('sha256').update(body).digest('base64url').slice(0, 27) });

/**
 * The API reference of one route group: the OpenAPI 3.1 document at <prefix>/openapi.json
 * (listed in the group's public_paths: readable without a key) and the same as a page at
 * `pagePath`. Both are generated at start-up, when every plugin's routes are registered, and
 * again when the policies reload; clients revalidate them with the ETag. A second version of
 * the API is a second registration, with a reference of its own.
 */
export const docsPlugin: Plugin<DocsOptions> = {
    name: 'docs',
    // The fields the records plugin's extensions add to records belong in their schemas.
    dependencies: ['records'],
    multiple: true,
    register(server, options) {

        Joi.assert(options, optionsSchema, 'docs plugin options');
        const documentPath = documentPathOf(options.prefix);
        const pkg = JSON.parse(Fs.readFileSync(Path.join(projectRoot, 'package.json'), 'utf8')) as { version: string; description: string };
        let reference: { document: Served; page: Served } | undefined;
        // The family API's reference, or another group's (the messaging API's) named by the group.
        const group = options.gateway.routeGroups.find((candidate) => candidate.name === options.routeGroup);
        const title = !group || group.plugins.includes('records') ? 'Family Records API' : `Family Records ${group.name} API`;

        const generate = () => {

            const document = openApiDocument(server.table(), {
                gateway: options.gateway,
                routeGroup: options.routeGroup,
                authSchemes: options.authSchemes,
                scopes: options.policyStore.current().scopes,
                publicBaseUrl: options.publicBaseUrl,
                problemTypeBase: `${options.publicBaseUrl}${options.pagePath}#error-`,
                title,
                version: pkg.version,
                description: pkg.description,
                addedFields: (resource) => server.plugins.records.addedFields(resource),
                livingPersons: livingPersonsPolicyOf(options.policyStore.current())
            });

            reference = {
                document: served(JSON.stringify(document), 'application/json; charset=utf-8'),
                page: served(referencePage(document, documentPath, { pagePath: options.pagePath, versions: options.versions }), 'text/html; charset=utf-8')
            };
        };

        // Policies that load generate a reference; should one not, the last one stays, as the last good policies do.
        const regenerate = () => {

            try {
                generate();
            }
            catch (error) {
                options.log(['docs', 'error'], `API reference not regenerated after the policies reloaded: ${(error as Error).stack}`);
            }
        };

        server.ext('onPreStart', () => {

            generate();
            options.policyStore.on('reloaded', regenerate);
        });
        server.ext('onPostStop', () => {

            options.policyStore.removeListener('reloaded', regenerate);
        });

        const serve = (pick: (generated: NonNullable<typeof reference>) => Served) => {

            return (request: Request, h: ResponseToolkit) => {

                const { body, type, etag } = pick(reference!);
                return unmodified(request, h, { etag }) ?? h.response(body).type(type);
            };
        };

        const cache = { privacy: 'public', expiresIn: cacheSeconds * 1000 } as const;
        // A reference is fetched whole: hapi would otherwise answer a Range with a 206 the reference does not document.
        const response = { ranges: false } as const;
        // It takes no query, and refuses one as every route of the API refuses parameters it does not take.
        const validate = { query: Joi.object({}) };
        const revalidated = {
            ETag: { description: 'The version of this document: send it in If-None-Match (304).', required: true, schema: { type: 'string' } },
            'Cache-Control': { description: `\`max-age=${cacheSeconds}, must-revalidate, public\`.`, required: true, schema: { type: 'string' } }
        };
        server.route([
            {
                method: 'GET',
                path: documentPath,
                handler: serve((generated) => generated.document),
                options: {
                    auth: false,
                    cache,
                    response,
                    validate,
                    tags: ['api', 'reference'],
                    description: 'This reference, as an OpenAPI 3.1 document',
                    notes: `Public: no API key or access token needed. The same reference for people is at ${options.pagePath}.`,
                    plugins: {
                        docs: {
                            responses: {
                                200: { description: 'The OpenAPI document.', headers: revalidated, content: { 'application/json': { schema: { type: 'object' } } } },
                                304: { description: 'If-None-Match named the document\'s ETag, or was `*`: the cached copy is current.', headers: revalidated }
                            },
                            errorTexts: { invalid_request: 'The URL has a query: this document takes none.' }
                        }
                    }
                }
            },
            {
                method: 'GET',
                path: options.pagePath,
                handler: serve((generated) => generated.page),
                options: { auth: false, cache, response, validate, description: 'The API reference for people' }
            }
        ]);
    }
};
