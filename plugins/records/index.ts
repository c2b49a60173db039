import type { Plugin, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';

import type { Models } from '../../models';
import { resourceNames, resources } from '../../models/resources';
import { aggregateHandler, resourceHandlers } from './handlers';
import { aggregateQuerySchema, createPayloadSchema, listQuerySchema, updatePayloadSchema } from './schemas';
import type { RunInTransaction } from './writes';

export interface RecordsOptions {
    models: Models;
    transaction: RunInTransaction;
    publicBaseUrl: string;
}

/** The response formats lists can be asked for. */
export const listFormats = ['json'] as const;

const group = 'family-api';
const idParam = Joi.object({ id: Joi.string().max(64).required() });
const jsonBody = { parse: true, allow: 'application/json', maxBytes: 1024 * 1024 } as const;

/** Routes of one resource, each declaring the resource and operation the gateway enforces. */
function resourceRoutes(name: typeof resourceNames[number], options: RecordsOptions): ServerRoute[] {

    const resource = resources[name];
    const handlers = resourceHandlers(resource, options);
    const base = `/api/v1/${name}`;
    const declare = (operation: string) => ({ auth: group, plugins: { gateway: { resource: name, operation } }, tags: ['api', name] });

    const routes: ServerRoute[] = [
        { method: 'GET', path: base, handler: handlers.list, options: { ...declare('read'), description: `List ${name}`, validate: { query: listQuerySchema(resource, listFormats) } } },
        { method: 'GET', path: `${base}/{id}`, handler: handlers.read, options: { ...declare('read'), description: `Read one ${resource.singular}`, validate: { params: idParam, query: Joi.object({}) } } },
        { method: 'PATCH', path: `${base}/{id}`, handler: handlers.update, options: { ...declare('update'), description: `Update a ${resource.singular}`, payload: jsonBody, validate: { params: idParam, query: Joi.object({}), payload: updatePayloadSchema(resource).prefs({ convert: false }) } } },
        { method: 'DELETE', path: `${base}/{id}`, handler: handlers.remove, options: { ...declare('delete'), description: `Delete a ${resource.singular}`, validate: { params: idParam, query: Joi.object({}) } } }
    ];

    if (resource.creatable) {
        routes.push({ method: 'POST', path: base, handler: handlers.create, options: { ...declare('create'), description: `Create a ${resource.singular}`, payload: jsonBody, validate: { query: Joi.object({}), payload: createPayloadSchema(resource).prefs({ convert: false }) } } });
    }

    return routes;
}

/** The family records API v1: the eight resources and the aggregate `all`. */
export const recordsPlugin: Plugin<RecordsOptions> = {
    name: 'records',
    register(server, options) {

        for (const name of resourceNames) {
            server.route(resourceRoutes(name, options));
        }

        server.route({
            method: 'GET',
            path: '/api/v1/all',
            handler: aggregateHandler(options),
            options: { auth: group, plugins: { gateway: { resource: 'all', operation: 'read' } }, tags: ['api', 'all'], description: 'Every resource in the key\'s scope', validate: { query: aggregateQuerySchema(listFormats) } }
        });
    }
};
