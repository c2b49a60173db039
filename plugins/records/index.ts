import type { Plugin, PluginSpecificConfiguration, Request, ResponseObject, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';

import type { PolicyStore } from '../../gateway/policies/policy-store';
import type { ChangeBus } from '../../lib/change-bus';
import type { Log } from '../../lib/logger';
import { withBodyChecks } from '../../lib/request-bodies';
import type { Models } from '../../models';
import type { ResourceRecord } from '../../models/resource-record';
import { resourceNames, resources, type ResourceDeclaration, type ResourceName } from '../../models/resources';
import { RecordExtensions, type RecordExtension } from './extensions';
import { aggregateHandler, resourceHandlers } from './handlers';
import { createOnce, idempotencyKeysCleanup, idempotentCreateDocs, type Creation } from './idempotency';
import { listReader, type ListReader } from './list-readers';
import { recordIdValidation } from './record-ids';
import { aggregateQuerySchema, createPayloadSchema, listQuerySchema, updatePayloadSchema } from './schemas';
import { serializeRecord, type SerializedRecord } from './serialize';
import { createRecord, type CreateOptions, type RunInTransaction } from './writes';

export interface RecordsOptions {
    models: Models;
    transaction: RunInTransaction;
    changeBus: ChangeBus;
    publicBaseUrl: string;
    /** The schedule of the idempotency keys' cleanup (policies/records.yaml). */
    policyStore: PolicyStore;
    log: Log;
}

/** The options, plus what other plugins added through `extend()` and the list reader: what the handlers work with. */
export type RecordsContext = RecordsOptions & { extensions: RecordExtensions; lists: ListReader };

/**
 * What the records plugin offers other plugins (`server.plugins.records`), so they
 * create and show records its way without reaching into its files.
 */
export interface RecordsApi {
    /** Adds response-time values and after-delete work to a resource. */
    extend(resource: ResourceName, extension: RecordExtension): void;
    /** Validation of a route naming one record in its path (`{id}`): anything but an id of the resource's shape is a 404. */
    recordIdValidation: typeof recordIdValidation;
    /** The joi schema of a create body: the resource's writable fields. */
    createPayloadSchema(resource: ResourceDeclaration): Joi.ObjectSchema;
    /** Creates a record and its change event in one transaction. */
    createRecord(familyLongId: string, resource: ResourceDeclaration, values: Record<string, unknown>, options?: CreateOptions): Promise<ResourceRecord>;
    /** A record as the JSON API shows it, extensions included. */
    serialize(resource: ResourceDeclaration, record: ResourceRecord): SerializedRecord;
    /** Answers a create route's request once per `Idempotency-Key`, replaying that answer to a retry (idempotency.ts). */
    createOnce(request: Request, h: ResponseToolkit, creation: Creation): Promise<ResponseObject>;
    /** What the API reference says of a create route's `Idempotency-Key`: the header, and its 422. */
    idempotentCreateDocs: NonNullable<PluginSpecificConfiguration['docs']>;
}

declare module '@hapi/hapi' {
    interface PluginProperties {
        records: RecordsApi;
    }
}

/** The formats a list of `resource` answers in: JSON (this plugin's own) and every export format that can show it. */
type ListFormats = (resource: ResourceDeclaration) => string[];

const group = 'family-api';
const jsonBody = { parse: true, allow: 'application/json', maxBytes: 1024 * 1024 } as const;
/*
 * How lists compress when the client accepts it: zlib's fastest level. A 100,000-row CSV export is
 * 16 MB; the default level made its download take half as long again, the fastest a quarter, and
 * it still makes CSV about a fifth of its size.
 */
const listCompression = { gzip: { level: 1 }, deflate: { level: 1 } };

/** Routes of one resource, each declaring the resource and operation the gateway enforces. */
function resourceRoutes(name: typeof resourceNames[number], options: RecordsContext, listFormats: ListFormats): ServerRoute[] {

    const resource = resources[name];
    const handlers = resourceHandlers(resource, options);
    const base = `/api/v1/${name}`;
    // `docs`: what the API reference cannot tell from the route itself, the conditional request headers its handler answers.
    const declare = (operation: string, docs?: PluginSpecificConfiguration['docs']) => ({ auth: group, plugins: { gateway: { resource: name, operation }, ...(docs ? { docs } : {}) }, tags: ['api', name] });
    const writePreconditions = { headers: ['If-Match', 'If-Unmodified-Since'] } as const;
    const oneRecord = recordIdValidation(resource);

    const routes: ServerRoute[] = [
        {
            method: 'GET',
            path: base,
            handler: handlers.list,
            options: {
                ...declare('read'),
                description: `List ${name}`,
                compression: listCompression,
                validate: { query: listQuerySchema(resource, listFormats(resource)) }
            }
        },
        {
            method: 'GET',
            path: `${base}/{id}`,
            handler: handlers.read,
            options: {
                ...declare('read', { headers: ['If-None-Match'] }),
                description: `Read one ${resource.singular}`,
                validate: { ...oneRecord, query: Joi.object({}) }
            }
        },
        {
            method: 'PATCH',
            path: `${base}/{id}`,
            handler: handlers.update,
            options: {
                ...declare('update', writePreconditions),
                description: `Update a ${resource.singular}`,
                payload: jsonBody,
                validate: { ...oneRecord, query: Joi.object({}), payload: updatePayloadSchema(resource).prefs({ convert: false }) }
            }
        },
        {
            method: 'DELETE',
            path: `${base}/{id}`,
            handler: handlers.remove,
            options: {
                ...declare('delete', writePreconditions),
                description: `Delete a ${resource.singular}`,
                validate: { ...oneRecord, query: Joi.object({}) }
            }
        }
    ];

    if (resource.creatable) {
        routes.push({
            method: 'POST',
            path: base,
            handler: handlers.create,
            options: {
                ...declare('create', idempotentCreateDocs),
                description: `Create a ${resource.singular}`,
                payload: jsonBody,
                validate: { query: Joi.object({}), payload: createPayloadSchema(resource).prefs({ convert: false }) }
            }
        });
    }

    return routes;
}

/** The family records API v1: the eight resources and the aggregate `all`. */
export const recordsPlugin: Plugin<RecordsOptions> = {
    name: 'records',
    dependencies: ['formats'],
    register(server, registered) {

        const formats = server.plugins.formats;
        if (!formats) {
            throw new Error('The records plugin renders exports through the formats plugin: register formats before records');
        }

        const listFormats: ListFormats = (resource) => ['json', ...formats.exportFormatsOf(resource)];
        const aggregateFormats = [...new Set(resourceNames.flatMap((name) => listFormats(resources[name])))];
        const options: RecordsContext = { ...registered, extensions: new RecordExtensions(), lists: listReader(registered.models.Family.sequelize!) };
        // Added before the deployment's own onPostStop, which closes the database: hapi runs them in that order.
        server.ext('onPostStop', () => options.lists.close());
        // Only while the server runs (not in the CLI); stopped before the database closes.
        const cleanup = idempotencyKeysCleanup(registered.models, registered.policyStore, registered.log);
        server.ext('onPostStart', () => cleanup.start());
        server.ext('onPreStop', () => cleanup.stop());
        for (const name of resourceNames) {
            server.route(withBodyChecks(resourceRoutes(name, options, listFormats)));
        }

        server.route({
            method: 'GET',
            path: '/api/v1/all',
            handler: aggregateHandler(options),
            options: {
                auth: group,
                plugins: { gateway: { resource: 'all', operation: 'read' } },
                tags: ['api', 'all'],
                description: 'Every resource in the key\'s scope',
                compression: listCompression,
                validate: { query: aggregateQuerySchema(aggregateFormats) }
            }
        });

        const api: RecordsApi = {
            extend: (resource, extension) => options.extensions.add(resource, extension),
            recordIdValidation,
            createPayloadSchema,
            createRecord: (familyLongId, resource, values, createOptions) => {

                const context = { models: options.models, transaction: options.transaction, changeBus: options.changeBus, familyLongId };
                return createRecord(context, resource, values, createOptions);
            },
            serialize: (resource, record) => serializeRecord(resource, record, options.extensions),
            createOnce: (request, h, creation) => createOnce(options.models, request, h, creation),
            idempotentCreateDocs
        };
        server.expose(api);
    }
};
