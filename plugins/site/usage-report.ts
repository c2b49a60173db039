import { col, fn, literal, Op } from 'sequelize';

import { hourOf } from '../../gateway/usage-meter';
import type { Models } from '../../models';
import { statusClasses, type StatusClass } from '../../models/usage-counter';

const dayMs = 86_400_000;
export const reportDays = 30;

/** The hours of the last 24 (this one included) and of the last 30 UTC days (today included). */
function windows(now: number) {

    const hour = hourOf(now);
    const today = Math.floor(hour / 24);
    return { since24h: hour - 23, since30d: (today - reportDays + 1) * 24, firstDay: today - reportDays + 1 };
}

/** `2026-05-01` for a day number (UTC days since 1970-01-01). */
export function dayLabel(day: number): string {

    return new Date(day * dayMs).toISOString().slice(0, 10);
}

export interface UsageTotals {
    last24h: number;
    last30d: number;
    /** 4xx and 5xx answers in the last 30 days. */
    errors30d: number;
}

const errorClasses = "('4xx', '5xx')";

/** Requests in the last 24 hours and 30 days, and errors, of every family that made any. */
export async function usageTotals(models: Models, now = Date.now(), familyLongId?: string): Promise<Map<string, UsageTotals>> {

    const { since24h, since30d } = windows(now);
    const rows = await models.UsageCounter.findAll({
        attributes: [
            'family_long_id',
            [fn('SUM', literal(`CASE WHEN hour >= ${since24h} THEN requests ELSE 0 END`)), 'last24h'],
            [fn('SUM', col('requests')), 'last30d'],
            [fn('SUM', literal(`CASE WHEN status_class IN ${errorClasses} THEN requests ELSE 0 END`)), 'errors30d']
        ],
        where: { hour: { [Op.gte]: since30d }, ...(familyLongId ? { family_long_id: familyLongId } : {}) },
        group: ['family_long_id'],
        raw: true
    }) as unknown as { family_long_id: string; last24h: string | number; last30d: string | number; errors30d: string | number }[];

    // PostgreSQL sums integers to bigint, which arrives as text.
    return new Map(rows.map((row) => [row.family_long_id, { last24h: Number(row.last24h), last30d: Number(row.last30d), errors30d: Number(row.errors30d) }]));
}

export interface FamilyUsage {
    days: string[];
    /** Requests per day of each status class, in `statusClasses` order. */
    byStatus: { name: StatusClass; values: number[] }[];
    /** Requests per day of each key that made any. */
    byKey: { keyId: string; values: number[]; total: number }[];
    topRoutes: { route: string; routeGroup: string; requests: number; errors: number }[];
}

/** One family's last 30 days: per day by status class and by key, and its busiest routes. */
export async function familyUsage(models: Models, familyLongId: string, now = Date.now()): Promise<FamilyUsage> {

    const { since30d, firstDay } = windows(now);
    const where = { family_long_id: familyLongId, hour: { [Op.gte]: since30d } };
    const day = literal('hour / 24');           // integer division in SQLite and PostgreSQL alike
    const perDay = (dimension: 'status_class' | 'key_id') => models.UsageCounter.findAll({
        attributes: [[day, 'day'], dimension, [fn('SUM', col('requests')), 'requests']],
        where,
        group: [literal('hour / 24') as never, dimension],
        raw: true
    }) as unknown as Promise<({ day: number | string; requests: number | string } & Record<typeof dimension, string>)[]>;

    const [statusRows, keyRows, routeRows] = await Promise.all([
        perDay('status_class'),
        perDay('key_id'),
        models.UsageCounter.findAll({
            attributes: ['route', 'route_group', [fn('SUM', col('requests')), 'requests'], [fn('SUM', literal(`CASE WHEN status_class IN ${errorClasses} THEN requests ELSE 0 END`)), 'errors']],
            where,
            group: ['route', 'route_group'],
            order: [[literal('requests'), 'DESC']] as never,
            limit: 10,
            raw: true
        }) as unknown as Promise<{ route: string; route_group: string; requests: string | number; errors: string | number }[]>
    ]);

    const emptyDays = () => new Array<number>(reportDays).fill(0);
    const byStatus = statusClasses.map((name) => ({ name, values: emptyDays() }));
    for (const row of statusRows) {
        byStatus.find((series) => series.name === row.status_class)!.values[Number(row.day) - firstDay] += Number(row.requests);
    }

    const byKey = new Map<string, number[]>();
    for (const row of keyRows) {
        const values = byKey.get(row.key_id) ?? emptyDays();
        values[Number(row.day) - firstDay] += Number(row.requests);
        byKey.set(row.key_id, values);
    }

    return {
        days: Array.from({ length: reportDays }, (_, i) => dayLabel(firstDay + i)),
        byStatus,
        byKey: [...byKey].map(([keyId, values]) => ({ keyId, values, total: values.reduce((sum, value) => sum + value, 0) })).sort((a, b) => b.total - a.total),
        topRoutes: routeRows.map((row) => ({ route: row.route, routeGroup: row.route_group, requests: Number(row.requests), errors: Number(row.errors) }))
    };
}
