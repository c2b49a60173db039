import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import Boom from '@hapi/boom';
import Joi from 'joi';

import { listDeviceGrants } from '../../../lib/accounts/devices';
import { suspenderName, suspendFamily, unsuspendFamily } from '../../../lib/accounts/families';
import { siteUser } from '../credentials';
import type { SiteContext } from '../context';
import { formAction, redirectWithNotice } from '../form-action';
import { found, freeText, idParam, type Refusal } from '../forms';
import { familyKeys, keyRows } from '../key-rows';
import { isolated } from '../isolated';
import { superAdminPage } from '../route-auth';
import { stackedBarChart } from '../usage-chart';
import { familyUsage, usageTotals } from '../usage-report';
import { endpointRow, hasWebhooks, manualAttempt, webhookServices } from '../webhooks';
import { accountStateRoutes, familyAccountState } from './account-state-routes';

const familyId = { params: Joi.object({ id: idParam }) };
// The chart splits by this many keys; the rest are summed as "other keys".
const chartedKeys = 5;

/** One family in the super-admin area: its usage over 30 days, its keys, suspending its API, and its account state (accountStateRoutes). */
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
            devices: await listDeviceGrants(context.accounts, { familyLongId: family.family_long_id }),
            devicesBase: `/admin/apis/families/${family.family_long_id}/devices`,
            ...await familyAccountState(models, family, siteUser(request).id),
            ...extra
        }).code(statusCode);
    }

    const refusedPage = (request: Request, h: ResponseToolkit, refusal: Refusal) => familyPage(request, h, { error: refusal.message }, refusal.statusCode);

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
                handler: formAction(models, {
                    run: (request) => suspendFamily(context.accounts, request.params.id as string, (request.payload as { reason: string }).reason, siteUser(request).id),
                    refused: refusedPage,
                    // Suspended already (another super-admin, another tab): that suspension stands, and nothing new happened to record.
                    audited: (_request, { family, changed }) => (changed ? { action: 'family.suspend', familyLongId: family.family_long_id, target: family.family_long_id, detail: family.api_suspension_reason } : undefined),
                    answer: (request, h, { changed }) => redirectWithNotice(h, `/admin/apis/families/${request.params.id as string}`, changed ? 'family-suspended' : 'family-already-suspended')
                })
            }
        },
        {
            method: 'POST',
            path: '/admin/apis/families/{id}/webhooks/{endpointId}/test',
            options: {
                auth: superAdminPage,
                validate: { params: Joi.object({ id: idParam, endpointId: idParam }) },
                handler: formAction(models, {
                    run: (request) => webhookServices(request).ping(request.params.id as string, request.params.endpointId as string),
                    refused: refusedPage,
                    audited: (request, { outcome }) => ({ action: 'webhook.test', familyLongId: request.params.id as string, target: request.params.endpointId as string, detail: outcome.delivered ? `delivered (${outcome.result.statusCode}), by a super-admin` : `failed: ${outcome.result.error ?? outcome.result.statusCode}, by a super-admin` }),
                    // Post/redirect/get: reloading the page that shows the outcome must not send another test event.
                    answer: (request, h, { delivery }) => h.redirect(`/admin/apis/families/${request.params.id as string}?webhook_test=${delivery.id}`)
                })
            }
        },
        {
            method: 'POST',
            path: '/admin/apis/families/{id}/unsuspend',
            options: {
                auth: superAdminPage,
                validate: familyId,
                handler: formAction(models, {
                    run: (request) => found(unsuspendFamily(context.accounts, request.params.id as string)),
                    audited: (_request, { family, changed }) => (changed ? { action: 'family.unsuspend', familyLongId: family.family_long_id, target: family.family_long_id } : undefined),
                    answer: (request, h, { changed }) => redirectWithNotice(h, `/admin/apis/families/${request.params.id as string}`, changed ? 'family-unsuspended' : 'family-not-suspended')
                })
            }
        },
        ...accountStateRoutes(context, refusedPage)
    ];
}
