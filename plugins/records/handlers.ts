import type { Request, ResponseToolkit } from '@hapi/hapi';

import { revisionEntity, withRevisionTag } from '../../lib/entity-tags';
import { preconditionsOf } from '../../lib/preconditions';
import { unmodified } from '../../lib/unmodified';
import { resourceNames, resources, type ResourceDeclaration } from '../../models/resources';
import { principalOf } from '../../gateway/principal';
import { effectiveResources } from '../../gateway/scopes';
import type { RecordsContext } from './context';
import { decodeCursor, encodeCursor } from './cursor';
import type { ListOptions } from './list-sql';
import { listedRecords } from './listed-records';
import { cursorAfter, exportedRecords, readPage, type RecordSource } from './record-batches';
import { recordNotFound } from './record-ids';
import { recordLinesReader } from './record-lines';
import { recordView, redactionOf } from './record-view';
import { filtersOf } from './schemas';
import type { RecordExtensions } from './extensions';
import { createOnce } from './idempotency';
import { serializeRecord } from './serialize';
import { createRecord, deleteRecord, updateRecord, type WriteContext } from './writes';

type Direction = 'asc' | 'desc';

/**
 * Where a resource's lists read from. A JSON page shows records with what other plugins'
 * extensions add; an export shows the declared fields only.
 */
function recordSource(resource: ResourceDeclaration, options: RecordsContext, extensions?: RecordExtensions): RecordSource {

    const dialect = options.models.Family.sequelize!.getDialect();
    return { resource, dialect, find: listedRecords(options.lists, dialect, resource, extensions) };
}

/** A list's query as the route's joi schema validated and converted it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the schema, not TypeScript, says what each field holds
type ValidatedQuery = Record<string, any>;

/** A format other than JSON: the whole list goes to the formats plugin as a streamed export. */
const isExport = (query: ValidatedQuery) => query.format !== undefined && query.format !== 'json';

/** The route handlers of one resource, bound to the plugin's options. */
export function resourceHandlers(resource: ResourceDeclaration, options: RecordsContext) {

    const model = options.models.records[resource.name];
    const pages = recordSource(resource, options, options.extensions);
    const exports = recordSource(resource, options);
    const writeContext = (request: Request): WriteContext => ({
        models: options.models,
        transaction: options.transaction,
        changeBus: options.changeBus,
        familyLongId: principalOf(request).family.familyLongId,
        redaction: redactionOf(options.policyStore, request)
    });

    // A resource no extension adds to goes out as the database wrote its JSON; the others are built record by record.
    // Asked at each request: other plugins extend the records API after it registered.
    const recordLines = recordLinesReader(options.lists, pages.dialect, resource);
    const jsonPage = async (listOptions: ListOptions, limit: number): Promise<{ body: string | object; nextCursor: string | null }> => {

        if (!options.extensions.serializes(resource.name)) {
            const { lines, count, lastBeforeMore } = await recordLines(listOptions, limit);
            const nextCursor = lastBeforeMore ? encodeCursor(cursorAfter(resource, listOptions, lastBeforeMore)) : null;
            return { body: `{"data":[${lines}],"meta":${JSON.stringify({ resource: resource.name, count, next_cursor: nextCursor })}}`, nextCursor };
        }

        const { records: data, more } = await readPage(pages, listOptions, limit);
        const nextCursor = more ? encodeCursor(cursorAfter(resource, listOptions, data[data.length - 1])) : null;
        return { body: { data, meta: { resource: resource.name, count: data.length, next_cursor: nextCursor } }, nextCursor };
    };

    const recordUrl = (id: string) => `${options.publicBaseUrl}${options.prefix}/${resource.name}/${encodeURIComponent(id)}`;

    return {
        async list(request: Request, h: ResponseToolkit) {

            const query = request.query as ValidatedQuery;
            const credentials = principalOf(request);
            const sort: string = query.sort ?? 'created_at';
            const direction: Direction = query.direction ?? 'asc';
            const listOptions: ListOptions = {
                familyLongId: credentials.family.familyLongId,
                search: query.search,
                sort,
                direction,
                filters: filtersOf(query),
                after: query.cursor ? decodeCursor(resource, query.cursor, sort, direction) : undefined,
                redaction: redactionOf(options.policyStore, request)
            };

            if (isExport(query)) {
                const sections = [{ resource, rows: exportedRecords(exports, listOptions, query.limit) }];
                return h.exportRecords({ format: query.format, familyName: credentials.family.name, aggregate: false, sections });
            }

            const { body, nextCursor } = await jsonPage(listOptions, query.limit);
            const response = h.response(body);
            if (typeof body === 'string') {
                response.type('application/json; charset=utf-8');
            }

            if (nextCursor) {
                const next = new URLSearchParams(request.url.search);
                next.set('cursor', nextCursor);
                response.header('Link', `<${options.publicBaseUrl}${request.path}?${next}>; rel="next"`);
            }

            return response;
        },

        async read(request: Request, h: ResponseToolkit) {

            const record = await model.findOne({ where: { id: request.params.id, family_long_id: principalOf(request).family.familyLongId } });
            if (!record) {
                throw recordNotFound(resource, request.params.id as string);
            }

            // A redacted view has the record's revision as its tag too: the tag tells versions of the record apart, the key its view.
            return unmodified(request, h, revisionEntity(record.revision)) ??
                { data: serializeRecord(resource, record, options.extensions, await recordView(resource, record, redactionOf(options.policyStore, request))) };
        },

        create(request: Request, h: ResponseToolkit) {

            const redaction = redactionOf(options.policyStore, request);
            return createOnce(options.models, request, h, {
                create: (createOptions) => createRecord(writeContext(request), resource, request.payload as Record<string, unknown>, createOptions),
                answerOf: async (record, transaction) => ({
                    body: { data: serializeRecord(resource, record, options.extensions, await recordView(resource, record, redaction, transaction)) },
                    location: recordUrl(record.id)
                })
            });
        },

        async update(request: Request, h: ResponseToolkit) {

            const record = await updateRecord(writeContext(request), resource, request.params.id as string, request.payload as Record<string, unknown>, preconditionsOf(request));
            const view = await recordView(resource, record, redactionOf(options.policyStore, request));
            return withRevisionTag(h.response({ data: serializeRecord(resource, record, options.extensions, view) }), record.revision);
        },

        async remove(request: Request) {

            const deleted = await deleteRecord(writeContext(request), resource, request.params.id as string, preconditionsOf(request));
            await options.extensions.afterDelete(resource.name, deleted);
            return { data: { id: request.params.id, deleted: true } };
        }
    };
}

/** `GET <prefix>/all`: every resource in the key's scope, each searched and ordered alike. */
export function aggregateHandler(options: RecordsContext) {

    const sources = resourceNames.map((name) => ({ pages: recordSource(resources[name], options, options.extensions), exports: recordSource(resources[name], options) }));

    return async (request: Request, h: ResponseToolkit) => {

        const query = request.query as ValidatedQuery;
        const credentials = principalOf(request);
        const listOptions: ListOptions = {
            familyLongId: credentials.family.familyLongId,
            search: query.search,
            sort: query.sort ?? 'created_at',
            direction: query.direction ?? 'asc',
            filters: {},
            redaction: redactionOf(options.policyStore, request)
        };
        const inScope = sources.filter((source) => effectiveResources(credentials).includes(source.pages.resource.name));

        if (isExport(query)) {
            const sections = inScope.map(({ exports }) => ({ resource: exports.resource, rows: exportedRecords(exports, listOptions, query.limit) }));
            return h.exportRecords({ format: query.format, familyName: credentials.family.name, aggregate: true, sections });
        }

        const data: Record<string, unknown[]> = {};
        const truncated: string[] = [];
        for (const { pages } of inScope) {
            const { records, more } = await readPage(pages, listOptions, query.limit);
            data[pages.resource.name] = records;
            if (more) {
                truncated.push(pages.resource.name);
            }
        }

        const counts = Object.fromEntries(Object.entries(data).map(([name, rows]) => [name, rows.length]));
        return { data, meta: { resource: 'all', counts, truncated } };
    };
}
