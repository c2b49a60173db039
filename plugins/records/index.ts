import type { Plugin, PluginSpecificConfiguration, Request, ResponseObject, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { Transaction } from 'sequelize';

import { personIdColumn, type Redaction } from '../../lib/privacy/redaction';
import { principalOf } from '../../gateway/principal';
import { withBodyChecks } from '../../lib/request-bodies';
import type { ResourceRecord } from '../../models/resource-record';
import { aggregateResourceName, resourceNames, resources, type ResourceDeclaration, type ResourceName } from '../../models/resources';
import type { RecordsContext, RecordsOptions } from './context';
import { RecordExtensions, type AddedField, type RecordExtension } from './extensions';
import { formatNegotiation } from './format-negotiation';
import { aggregateHandler, resourceHandlers } from './handlers';
import { createOnce, idempotencyKeysCleanup, idempotentCreateDocs, type Creation } from './idempotency';
import { listReader } from './list-readers';
import { assertNamesNoLivingPerson, livingWriteErrors } from './living-writes';
import { recordIdValidation } from './record-ids';
import { recordView, redactionOf } from './record-view';
import { aggregateQuerySchema, createPayloadSchema, listQuerySchema, updatePayloadSchema } from './schemas';
import { serializeRecord } from './serialize';
import type { SerializedRecord } from './serialized-record';
import { createRecord, updateRecord, type CreateOptions, type WriteContext } from './writes';

/**
 * What the records plugin offers other plugins (`server.plugins.records`), so they
 * create and show records its way without reaching into its files.
 */
export interface RecordsApi {
    /** What other plugins added to the resources; shared by every registration (version) of the API. */
    readonly extensions: RecordExtensions;
    /** Adds response-time values and after-delete work to a resource, in every registration (version) of the API. */
    extend(resource: ResourceName, extension: RecordExtension): void;
    /** The fields other plugins' extensions may add to the resource's records, for the API reference. */
    addedFields(resource: ResourceName): Record<string, AddedField>;
    /** Validation of a route naming one record in its path (`{id}`): anything but an id of the resource's shape is a 404. */
    recordIdValidation: typeof recordIdValidation;
    /** The joi schema of a create body: the resource's writable fields. */
    createPayloadSchema(resource: ResourceDeclaration): Joi.ObjectSchema;
    /** Creates a record and its change event in one transaction. */
    createRecord(familyLongId: string, resource: ResourceDeclaration, values: Record<string, unknown>, options?: CreateOptions): Promise<ResourceRecord>;
    /** Changes a record's fields and writes its change event in one transaction. */
    updateRecord(familyLongId: string, resource: ResourceDeclaration, id: string, changes: Record<string, unknown>): Promise<ResourceRecord>;
    /** A record as the JSON API shows it, extensions included. */
    serialize(resource: ResourceDeclaration, record: ResourceRecord): SerializedRecord;
    /** A record as the JSON API shows it to the request's key: redacted when the key sees living persons so (read inside `transaction` when given). */
    serializeFor(request: Request, resource: ResourceDeclaration, record: ResourceRecord, transaction?: Transaction): Promise<SerializedRecord>;
    /** What the request's key must not see of living persons (policies/privacy.yaml); undefined for a key that sees them in full. */
    redactionOf(request: Request): Redaction | undefined;
    /** Refuses (403 `living_person_protected`) values that name a person presumed living, when the request's key reads them redacted. */
    assertNamesNoLivingPerson(request: Request, resource: ResourceDeclaration, values: Record<string, unknown>, transaction: Transaction): Promise<void>;
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

/** The route extensions that pick one of these formats by the Accept header (format-negotiation.ts). */
type Negotiation = (formats: readonly string[]) => ReturnType<typeof formatNegotiation>;
const jsonBody = { parse: true, allow: 'application/json', maxBytes: 1024 * 1024 } as const;
/*
 * How lists compress when the client accepts it: zlib's fastest level. A large export's
 * compression runs on the event loop and slows its download; the fastest level slows it least and
 * still shrinks CSV to a small part of its size.
 */
const listCompression = { gzip: { level: 1 }, deflate: { level: 1 } };

/** Routes of one resource, each declaring the resource and operation the gateway enforces. */
function resourceRoutes(name: typeof resourceNames[number], options: RecordsContext, listFormats: ListFormats, negotiation: Negotiation): ServerRoute[] {

    const resource = resources[name];
    const handlers = resourceHandlers(resource, options);
    const base = `/${name}`;
    // `docs`: what the API reference cannot tell from the route itself, the conditional request headers its handler answers.
    const declare = (operation: string, docs?: PluginSpecificConfiguration['docs']) => ({ auth: options.routeGroup, plugins: { gateway: { resource: name, operation }, ...(docs ? { docs } : {}) }, tags: ['api', name] });
    const writePreconditions = { headers: ['If-Match', 'If-Unmodified-Since'] } as const;
    const oneRecord = recordIdValidation(resource);
    // A key that reads living persons redacted may not write what concerns one (living-writes.ts).
    const writeErrors = personIdColumn(resource) === undefined ? {} : { errors: livingWriteErrors };

    const routes: ServerRoute[] = [
        {
            method: 'GET',
            path: base,
            handler: handlers.list,
            options: {
                ...declare('read'),
                description: `List ${name}`,
                compression: listCompression,
                ext: negotiation(listFormats(resource)),
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
                ...declare('update', { ...writePreconditions, ...writeErrors }),
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
                ...declare('delete', { ...writePreconditions, ...writeErrors }),
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
                ...declare('create', { ...idempotentCreateDocs, ...writeErrors }),
                description: `Create a ${resource.singular}`,
                payload: jsonBody,
                validate: { query: Joi.object({}), payload: createPayloadSchema(resource).prefs({ convert: false }) }
            }
        });
    }

    return routes;
}

const optionsSchema = Joi.object({
    routeGroup: Joi.string().required(),
    publicBaseUrl: Joi.string().uri({ scheme: ['http', 'https'] }).required()
}).unknown();

/**
 * The family records API: the eight resources and the aggregate `all`, under the registration's
 * `routes.prefix` and authenticated by its `routeGroup`. A second version of the API is a second
 * registration; what serves the whole server (the API other plugins use, their extensions, the
 * idempotency keys' cleanup) is made by the first and shared by the others.
 */
export const recordsPlugin: Plugin<RecordsOptions> = {
    name: 'records',
    multiple: true,
    dependencies: ['formats'],
    register(server, registered) {

        Joi.assert(registered, optionsSchema, 'records plugin options');
        const formats = server.plugins.formats;
        if (!formats) {
            throw new Error('The records plugin renders exports through the formats plugin: register formats before records');
        }

        const first = server.plugins.records as RecordsApi | undefined;
        const prefix = server.realm.modifiers.route.prefix ?? '';
        const listFormats: ListFormats = (resource) => ['json', ...formats.exportFormatsOf(resource)];
        const aggregateFormats = [...new Set(resourceNames.flatMap((name) => listFormats(resources[name])))];
        const negotiation: Negotiation = (names) => formatNegotiation(Object.fromEntries(names.map((format) => [format, format === 'json' ? 'application/json' : formats.mediaTypeOf(format)])));
        const options: RecordsContext = { ...registered, prefix, extensions: first?.extensions ?? new RecordExtensions(), lists: listReader(registered.models.Family.sequelize!) };
        // Added before the deployment's own onPostStop, which closes the database: hapi runs them in that order.
        server.ext('onPostStop', () => options.lists.close());
        for (const name of resourceNames) {
            server.route(withBodyChecks(resourceRoutes(name, options, listFormats, negotiation)));
        }

        server.route({
            method: 'GET',
            path: '/all',
            handler: aggregateHandler(options),
            options: {
                auth: registered.routeGroup,
                plugins: { gateway: { resource: aggregateResourceName, operation: 'read' } },
                tags: ['api', 'all'],
                description: 'Every resource in the key\'s scope',
                compression: listCompression,
                ext: negotiation(aggregateFormats),
                validate: { query: aggregateQuerySchema(aggregateFormats, `${prefix}/all`) }
            }
        });

        if (first) {
            return;
        }

        // Only while the server runs (not in the CLI); stopped before the database closes.
        const cleanup = idempotencyKeysCleanup(registered.models, registered.policyStore, registered.log);
        server.ext('onPostStart', () => cleanup.start());
        server.ext('onPreStop', () => cleanup.stop());
        const writeContext = (familyLongId: string): WriteContext => ({ models: options.models, transaction: options.transaction, changeBus: options.changeBus, familyLongId });
        const api: RecordsApi = {
            extensions: options.extensions,
            extend: (resource, extension) => options.extensions.add(resource, extension),
            addedFields: (resource) => options.extensions.addedFields(resource),
            recordIdValidation,
            createPayloadSchema,
            createRecord: (familyLongId, resource, values, createOptions) => createRecord(writeContext(familyLongId), resource, values, createOptions),
            updateRecord: (familyLongId, resource, id, changes) => updateRecord(writeContext(familyLongId), resource, id, changes),
            serialize: (resource, record) => serializeRecord(resource, record, options.extensions),
            serializeFor: async (request, resource, record, transaction) => serializeRecord(resource, record, options.extensions,
                await recordView(resource, record, redactionOf(registered.policyStore, request), transaction)),
            redactionOf: (request) => redactionOf(registered.policyStore, request),
            async assertNamesNoLivingPerson(request, resource, values, transaction) {

                const redaction = redactionOf(registered.policyStore, request);
                if (redaction) {
                    await assertNamesNoLivingPerson(registered.models.Family.sequelize!, resource, principalOf(request).family.familyLongId, values, redaction, transaction);
                }
            },
            createOnce: (request, h, creation) => createOnce(options.models, request, h, creation),
            idempotentCreateDocs
        };
        server.expose(api);
    }
};
