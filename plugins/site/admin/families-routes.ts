import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';

import type { SiteContext } from '../context';
import { typedText } from '../forms';
import { superAdminPage } from '../route-auth';
import { familyRows, familySorts, type FamilySort } from './family-list';

const pageSize = 50;

const columns: { sort: FamilySort; label: string; numeric?: boolean }[] = [
    { sort: 'name', label: 'Family' },
    { sort: 'plan', label: 'Plan' },
    { sort: 'api', label: 'API' },
    { sort: 'keys', label: 'Keys', numeric: true },
    { sort: 'requests_24h', label: 'Requests 24 h', numeric: true },
    { sort: 'requests_30d', label: 'Requests 30 d', numeric: true },
    { sort: 'errors', label: 'Errors 30 d', numeric: true },
    { sort: 'last_activity', label: 'Last activity' }
];

/** Super-admin > APIs & Connectors: every family, searchable and sortable (query parameters, on the server). */
export function familiesRoutes(context: SiteContext): ServerRoute[] {

    return [{
        method: 'GET',
        path: '/admin/apis',
        options: {
            auth: superAdminPage,
            validate: {
                query: Joi.object({
                    q: typedText('familyName').trim().allow('').default(''),
                    sort: Joi.string().valid(...Object.keys(familySorts)).default('requests_24h'),
                    direction: Joi.string().valid('asc', 'desc'),
                    page: Joi.number().integer().min(1).default(1),
                    notice: Joi.string()
                })
            },
            async handler(request, h) {

                const { q, sort, page } = request.query as { q: string; sort: FamilySort; page: number };
                // Numbers read best largest first, names A to Z.
                const direction = (request.query.direction as string | undefined) ?? (columns.find((column) => column.sort === sort)?.numeric || sort === 'last_activity' ? 'desc' : 'asc');
                const rows = await familyRows(context.models, context.policies(), { search: q, sort, descending: direction === 'desc' });
                const link = (params: Record<string, string | number>) => `/admin/apis?${new URLSearchParams(Object.entries({ q, sort, direction, ...params }).filter(([, value]) => value !== '').map(([name, value]): [string, string] => [name, String(value)]))}`;

                return h.view('admin-families', {
                    title: 'All families · APIs & Connectors',
                    q,
                    sort,
                    direction,
                    columns: columns.map((column) => {

                        const current = column.sort === sort;
                        const next = current ? (direction === 'asc' ? 'desc' : 'asc') : column.numeric || column.sort === 'last_activity' ? 'desc' : 'asc';
                        return { ...column, current, ariaSort: current ? (direction === 'asc' ? 'ascending' : 'descending') : undefined, arrow: current ? (direction === 'asc' ? '↑' : '↓') : '', href: link({ sort: column.sort, direction: next, page: 1 }) };
                    }),
                    families: rows.slice((page - 1) * pageSize, page * pageSize),
                    total: rows.length,
                    previous: page > 1 ? link({ page: page - 1 }) : undefined,
                    next: page * pageSize < rows.length ? link({ page: page + 1 }) : undefined
                });
            }
        }
    }];
}
