import { col, fn } from 'sequelize';

import type { Policies } from '../../../gateway/policies/policy-file';
import type { Models } from '../../../models';
import { usageTotals } from '../usage-report';

export interface FamilyRow {
    id: string;
    name: string;
    plan: string;
    apiState: 'on' | 'off' | 'suspended' | 'not in plan';
    messagingSuspended: boolean;
    keys: number;
    requests24h: number;
    requests30d: number;
    errors30d: number;
    lastActivity: Date | null;
}

/** The columns the list sorts by, and how. */
export const familySorts = {
    name: (a: FamilyRow, b: FamilyRow) => a.name.localeCompare(b.name),
    plan: (a: FamilyRow, b: FamilyRow) => a.plan.localeCompare(b.plan),
    api: (a: FamilyRow, b: FamilyRow) => a.apiState.localeCompare(b.apiState),
    keys: (a: FamilyRow, b: FamilyRow) => a.keys - b.keys,
    requests_24h: (a: FamilyRow, b: FamilyRow) => a.requests24h - b.requests24h,
    requests_30d: (a: FamilyRow, b: FamilyRow) => a.requests30d - b.requests30d,
    errors: (a: FamilyRow, b: FamilyRow) => a.errors30d - b.errors30d,
    last_activity: (a: FamilyRow, b: FamilyRow) => (a.lastActivity?.getTime() ?? 0) - (b.lastActivity?.getTime() ?? 0)
} as const;

export type FamilySort = keyof typeof familySorts;

/**
 * Every family with its API state, live keys, usage and last activity, filtered by a
 * search of name or id and sorted. Usage sorts need every family's numbers, so the list
 * is assembled in memory: four grouped queries, whatever the number of families.
 */
export async function familyRows(models: Models, policies: Policies, options: { search: string; sort: FamilySort; descending: boolean }): Promise<FamilyRow[]> {

    const search = options.search.trim().toLowerCase();
    const [families, keyCounts, lastUses, usage] = await Promise.all([
        models.Family.findAll({ attributes: ['family_long_id', 'name', 'plan', 'api_enabled', 'api_suspended_at', 'messaging_suspended_at'], order: [['name', 'ASC']] }),
        models.ApiKey.findAll({ attributes: ['family_long_id', [fn('COUNT', col('id')), 'keys']], where: { revoked_at: null }, group: ['family_long_id'], raw: true }) as unknown as Promise<{ family_long_id: string; keys: number | string }[]>,
        models.ApiKey.findAll({ attributes: ['family_long_id', [fn('MAX', col('last_used_at')), 'last']], group: ['family_long_id'], raw: true }) as unknown as Promise<{ family_long_id: string; last: Date | string | null }[]>,
        usageTotals(models)
    ]);

    const keys = new Map(keyCounts.map((row) => [row.family_long_id, Number(row.keys)]));
    const lastUse = new Map(lastUses.map((row) => [row.family_long_id, row.last ? new Date(row.last) : null]));
    const rows = families
        .filter((family) => !search || family.name.toLowerCase().includes(search) || family.family_long_id.toLowerCase().includes(search))
        .map((family): FamilyRow => {

            const plan = policies.plans.get(family.plan);
            const totals = usage.get(family.family_long_id);
            return {
                id: family.family_long_id,
                name: family.name,
                plan: plan?.label ?? family.plan,
                apiState: family.api_suspended_at ? 'suspended' : !plan?.api_access ? 'not in plan' : family.api_enabled ? 'on' : 'off',
                messagingSuspended: Boolean(family.messaging_suspended_at),
                keys: keys.get(family.family_long_id) ?? 0,
                requests24h: totals?.last24h ?? 0,
                requests30d: totals?.last30d ?? 0,
                errors30d: totals?.errors30d ?? 0,
                lastActivity: lastUse.get(family.family_long_id) ?? null
            };
        });

    const compare = familySorts[options.sort];
    return rows.sort((a, b) => (options.descending ? compare(b, a) : compare(a, b)) || a.id.localeCompare(b.id));
}
