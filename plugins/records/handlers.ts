import type { Request, ResponseToolkit } from '@hapi/hapi';

import { apiError } from '../../lib/errors';
import { resources, type ResourceDeclaration } from '../../models/resources';
import { apiCredentials, effectiveResources } from '../../gateway/scopes';
import { decodeCursor, encodeCursor } from './cursor';
import { listQuery } from './list-query';
import { filtersOf } from './schemas';
import { serializeRecord, sortValue } from './serialize';
import { createRecord, deleteRecord, updateRecord, type WriteContext } from './writes';
import type { RecordsOptions } from '.';

type Direction = 'asc' | 'desc';

/** The route handlers of one resource, bound to the plugin's options. */
export function resourceHandlers(resource: ResourceDeclaration, options: RecordsOptions) {

    const model = options.models.records[resource.name];
    const dialect = options.models.Family.sequelize!.getDialect();
    const writeContext = (request: Request): WriteContext => ({
        models: options.models,
        transaction: options.transaction,
        familyLongId: apiCredentials(request).family.familyLongId
    });

    const recordUrl = (id: string) => `${options.publicBaseUrl}/api/v1/${resource.name}/${encodeURIComponent(id)}`;

    return {
        async list(request: Request, h: ResponseToolkit) {

            const query = request.query as Record<string, any>;
            const sort: string = query.sort ?? 'created_at';
            const direction: Direction = query.direction ?? 'asc';
            const limit: number = query.limit;
            const { where, order } = listQuery(resource, {
                familyLongId: apiCredentials(request).family.familyLongId,
                search: query.search,
                sort,
                direction,
                filters: filtersOf(query),
                after: query.cursor ? decodeCursor(query.cursor, sort, direction) : undefined
            }, dialect);

            const rows = await model.findAll({ where, order, limit: limit + 1 });
            const data = rows.slice(0, limit).map((row) => serializeRecord(resource, row));
            const last = data[data.length - 1];
            const nextCursor = rows.length > limit ? encodeCursor({ sort, direction, value: sortValue(last, sort), id: last.id }) : null;

            const response = h.response({ data, meta: { resource: resource.name, count: data.length, next_cursor: nextCursor } });
            if (nextCursor) {
                const next = new URLSearchParams(request.url.search);
                next.set('cursor', nextCursor);
                response.header('Link', `<${options.publicBaseUrl}${request.path}?${next}>; rel="next"`);
            }

            return response;
        },

        async read(request: Request) {

            const record = await model.findOne({ where: { id: request.params.id, family_long_id: apiCredentials(request).family.familyLongId } });
            if (!record) {
                throw apiError(404, 'not_found', `No ${resource.singular} ${request.params.id}.`);
            }

            return { data: serializeRecord(resource, record) };
        },

        async create(request: Request, h: ResponseToolkit) {

            const record = await createRecord(writeContext(request), resource, request.payload as Record<string, unknown>);
            return h.response({ data: serializeRecord(resource, record) }).code(201).header('Location', recordUrl(record.id));
        },

        async update(request: Request) {

            const record = await updateRecord(writeContext(request), resource, request.params.id as string, request.payload as Record<string, unknown>);
            return { data: serializeRecord(resource, record) };
        },

        async remove(request: Request) {

            await deleteRecord(writeContext(request), resource, request.params.id as string);
            return { data: { id: request.params.id, deleted: true } };
        }
    };
}

/** `GET /api/v1/all`: every resource in the key's scope, each searched and ordered alike. */
export function aggregateHandler(options: RecordsOptions) {

    const dialect = options.models.Family.sequelize!.getDialect();

    return async (request: Request) => {

        const query = request.query as Record<string, any>;
        const credentials = apiCredentials(request);
        const sort: string = query.sort ?? 'created_at';
        const data: Record<string, unknown[]> = {};
        const truncated: string[] = [];

        for (const name of Object.keys(resources) as (keyof typeof resources)[]) {
            if (!effectiveResources(credentials).includes(name)) {
                continue;
            }

            const resource = resources[name];
            const { where, order } = listQuery(resource, { familyLongId: credentials.family.familyLongId, search: query.search, sort, direction: query.direction ?? 'asc', filters: {} }, dialect);
            const rows = await options.models.records[name].findAll({ where, order, limit: query.limit + 1 });
            data[name] = rows.slice(0, query.limit).map((row) => serializeRecord(resource, row));
            if (rows.length > query.limit) {
                truncated.push(name);
            }
        }

        const counts = Object.fromEntries(Object.entries(data).map(([name, rows]) => [name, rows.length]));
        return { data, meta: { resource: 'all', counts, truncated } };
    };
}
