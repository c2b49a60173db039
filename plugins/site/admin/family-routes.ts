import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import Boom from '@hapi/boom';
import Joi from 'joi';

import { suspenderName, suspendFamily, unsuspendFamily } from '../../../lib/accounts/families';
import { audit } from '../../../lib/audit-log';
import { siteUser } from '../credentials';
import type { SiteContext } from '../context';
import { found, freeText, idParam, refusalOf } from '../forms';
import { familyKeys, keyRows } from '../key-rows';
import { isolated } from '../isolated';
import { withNotice } from '../notices';
import { superAdminPage } from '../route-auth';
import { stackedBarChart } from '../usage-chart';
import { familyUsage, usageTotals } from '../usage-report';
import { endpointRow, hasWebhooks, manualAttempt, webhookServices } from '../webhooks';

const familyId = { params: Joi.object({ id: idParam }) };
// The chart splits by this many keys; the rest are summed as "other keys".
const chartedKeys = 5;

/** One family in the super-admin area: its usage over 30 days, its keys, and suspending its API. */
export function familyRoutes(context: SiteContext): ServerRoute[] {

    const { models } = context;

    async function familyPage(request: Request, h: ResponseToolkit, extra: Record<string, unknown> = {}, statusCode = 200) {

        const family = await models.Family.findByPk(request.params.id as string);
        if (!family) {
            throw Boom.notFound();
        }

        const policies = context.policies();
        const [usage, totals, keys] = await Promise.all([
            familyUsage(models, family.family_long_id),
            usageTotals(models, Date.now(), family.family_long_id),
            keyRows(models, policies.scopes, await familyKeys(models, family.family_long_id))
        ]);

        const keyName = new Map(keys.map((key) => [key.id, key.name]));
        const keySeries = usage.byKey.slice(0, chartedKeys).map((key) => ({ name: isolated(keyName.get(key.keyId) ?? key.keyId), values: key.values }));
        const otherKeys = usage.byKey.slice(chartedKeys);
        if (otherKeys.length > 0) {
            keySeries.push({ name: `${otherKeys.length} other keys`, values: usage.days.map((_, i) => otherKeys.reduce((sum, key) => sum + key.values[i], 0)) });
        }

        const statusChart = { title: `Requests per day by status class, ${usage.days[0]} to ${usage.days.at(-1)}`, description: `API requests of ${isolated(family.name)} per UTC day over the last 30 days, stacked by response status class (2xx success, 3xx redirect, 4xx client error, 5xx server error).`, labels: usage.days, series: usage.byStatus };
        const keyChart = { title: `Requests per day by API key, ${usage.days[0]} to ${usage.days.at(-1)}`, description: `API requests of ${isolated(family.name)} per UTC day over the last 30 days, stacked by the key that made them.`, labels: usage.days, series: keySeries };
        const plan = policies.plans.get(family.plan);

        return h.view('admin-family', {
            title: `${isolated(family.name)} · Usage`,
            family: {
                id: family.family_long_id,
                name: family.name,
                plan: plan?.label ?? family.plan,
                apiAccess: Boolean(plan?.api_access),
                apiEnabled: family.api_enabled,
                resources: family.api_resources,
                suspendedAt: family.api_suspended_at,
                suspendedBy: family.api_suspended_at ? await suspenderName(models, family.api_suspended_by) : undefined,
                suspensionReason: family.api_suspension_reason
            },
            totals: totals.get(family.family_long_id) ?? { last24h: 0, last30d: 0, errors30d: 0 },
            liveKeys: keys.filter((key) => !key.revokedAt).length,
            statusChart: stackedBarChart(statusChart),
            keyChart: stackedBarChart(keyChart),
            // The same numbers as a table: the chart's text alternative.
            statusTable: {
                columns: usage.byStatus.map((series) => series.name),
                rows: usage.days.map((day, i) => ({ day, values: usage.byStatus.map((series) => series.values[i]) }))
            },
            keyTable: usage.byKey.map((key) => ({ name: keyName.get(key.keyId) ?? key.keyId, id: key.keyId, total: key.total })),
            topRoutes: usage.topRoutes,
            keys,
            webhooksAvailable: hasWebhooks(request),
            webhooks: hasWebhooks(request) ? (await webhookServices(request).listEndpoints(family.family_long_id)).map(endpointRow) : undefined,
            ...extra
        }).code(statusCode);
    }

    return [
        {
            method: 'GET',
            path: '/admin/apis/families/{id}',
            options: {
                auth: superAdminPage,
                // After a test event the page is drawn again from the delivery log (manualAttempt() says why).
                validate: { ...familyId, query: Joi.object({ webhook_test: idParam.optional(), notice: Joi.string() }) },
                async handler(request, h) {

                    const { webhook_test: deliveryId } = request.query as { webhook_test?: string };
                    return familyPage(request, h, { webhookTest: await manualAttempt(models, request.params.id as string, deliveryId, 'ping') });
                }
            }
        },
        {
            method: 'POST',
            path: '/admin/apis/families/{id}/suspend',
            options: {
                auth: superAdminPage,
                validate: { ...familyId, payload: Joi.object({ reason: freeText('suspensionReason') }) },
                async handler(request, h) {

                    const { reason } = request.payload as { reason: string };
                    const id = request.params.id as string;
                    let suspended;
                    try {
                        suspended = await suspendFamily(context.accounts, id, reason, siteUser(request).id);
                    }
                    catch (error) {
                        const refusal = refusalOf(error);
                        return familyPage(request, h, { error: refusal.message }, refusal.statusCode);
                    }

                    // Suspended already (another super-admin, another tab): that suspension stands, and nothing new happened to record.
                    if (!suspended.changed) {
                        return h.redirect(withNotice(`/admin/apis/families/${id}`, 'family-already-suspended'));
                    }

                    await audit(models, request, { action: 'family.suspend', familyLongId: id, target: id, detail: reason });
                    return h.redirect(withNotice(`/admin/apis/families/${id}`, 'family-suspended'));
                }
            }
        },
        {
            method: 'POST',
            path: '/admin/apis/families/{id}/webhooks/{endpointId}/test',
            options: {
                auth: superAdminPage,
                validate: { params: Joi.object({ id: idParam, endpointId: idParam }) },
                async handler(request, h) {

                    const { id, endpointId } = request.params as { id: string; endpointId: string };
                    let attempt;
                    try {
                        attempt = await webhookServices(request).ping(id, endpointId);
                    }
                    catch (error) {
                        const refusal = refusalOf(error);
                        return familyPage(request, h, { error: refusal.message }, refusal.statusCode);
                    }

                    const { outcome, delivery } = attempt;
                    await audit(models, request, { action: 'webhook.test', familyLongId: id, target: endpointId, detail: outcome.delivered ? `delivered (${outcome.result.statusCode}), by a super-admin` : `failed: ${outcome.result.error ?? outcome.result.statusCode}, by a super-admin` });
                    // Post/redirect/get: reloading the page that shows the outcome must not send another test event.
                    return h.redirect(`/admin/apis/families/${id}?webhook_test=${delivery.id}`);
                }
            }
        },
        {
            method: 'POST',
            path: '/admin/apis/families/{id}/unsuspend',
            options: {
                auth: superAdminPage,
                validate: familyId,
                async handler(request, h) {

                    const id = request.params.id as string;
                    const { changed } = await found(unsuspendFamily(context.accounts, id));
                    if (!changed) {
                        return h.redirect(withNotice(`/admin/apis/families/${id}`, 'family-not-suspended'));
                    }

                    await audit(models, request, { action: 'family.unsuspend', familyLongId: id, target: id });
                    return h.redirect(withNotice(`/admin/apis/families/${id}`, 'family-unsuspended'));
                }
            }
        }
    ];
}
