import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import Boom from '@hapi/boom';
import Joi from 'joi';

import { audit } from '../../../lib/audit-log';
import { findFamily } from '../../../lib/accounts/families';
import { ownFamilyId, siteUser } from '../credentials';
import type { SiteContext } from '../context';
import { sentOnce } from '../form-tokens';
import { found, freeText, idParam, refusalOf, ticks } from '../forms';
import { withNotice } from '../notices';
import { managerPage } from '../route-auth';
import { deliveryRows, endpointRow, manualAttempt, webhookServices } from '../webhooks';

interface EndpointForm {
    url: string;
    description: string;
    resources: string[];
}

const endpointId = { params: Joi.object({ id: idParam }) };
// After a test event or redelivery the page is drawn again from the log, by delivery id (manualAttempt() says why).
const endpointPageQuery = Joi.object({ test: idParam.optional(), redelivery: idParam.optional(), notice: Joi.string() });
const recentDeliveries = 25;

/** Webhook endpoints of the manager's own family, through the webhooks plugin's services. */
export function webhookRoutes(context: SiteContext): ServerRoute[] {

    const { models } = context;
    const base = (id: string) => `/manage/apis/webhooks/${id}`;

    async function formPage(request: Request, h: ResponseToolkit, form: EndpointForm, error?: { message: string; statusCode: number }) {

        const family = await findFamily(context.accounts, ownFamilyId(request));
        return h.view('webhook-form', {
            title: 'Add a webhook endpoint',
            apiEnabled: family.api_enabled,
            url: form.url,
            description: form.description,
            resources: family.api_resources.map((name) => ({ name, checked: form.resources.includes(name) })),
            error: error?.message
        }).code(error?.statusCode ?? 200);
    }

    /** The endpoint with its recent deliveries; `extra` adds a test result or an error. */
    async function endpointPage(request: Request, h: ResponseToolkit, extra: Record<string, unknown> = {}, statusCode = 200) {

        const webhooks = webhookServices(request);
        const familyLongId = ownFamilyId(request);
        const endpoint = await found(webhooks.findEndpoint(familyLongId, request.params.id as string));
        const { deliveries } = await webhooks.listDeliveries(familyLongId, endpoint.id, { limit: recentDeliveries });
        return h.view('webhook', { title: 'Webhook endpoint', endpoint: endpointRow(endpoint), deliveries: await deliveryRows(models, deliveries), ...extra }).code(statusCode);
    }

    /** The endpoint's page again, saying why a service refused what the manager asked. */
    function refusedPage(request: Request, h: ResponseToolkit, error: unknown) {

        const refusal = refusalOf(error);
        return endpointPage(request, h, { error: refusal.message }, refusal.statusCode);
    }

    /** Runs a change of the endpoint, audits it and goes back to its page with a notice. */
    const change = (action: 'disable' | 'enable', run: (request: Request) => Promise<unknown>): ServerRoute['options'] => ({
        auth: managerPage,
        validate: endpointId,
        async handler(request, h) {

            try {
                await run(request);
            }
            catch (error) {
                return refusedPage(request, h, error);
            }

            await audit(models, request, { action: `webhook.${action}`, familyLongId: ownFamilyId(request), target: request.params.id as string });
            return h.redirect(withNotice(base(request.params.id as string), action === 'disable' ? 'webhook-disabled' : 'webhook-enabled'));
        }
    });

    /**
     * Whether the family's own audit log records deleting the endpoint (committed with the
     * deletion): nothing else is left of it, and only its family learns that it was there
     * (another family's id stays a 404).
     */
    async function deletedByFamily(familyLongId: string, id: string): Promise<boolean> {

        return await models.AuditEvent.count({ where: { action: 'webhook.delete', family_long_id: familyLongId, target: id } }) > 0;
    }

    return [
        {
            method: 'GET',
            path: '/manage/apis/webhooks/new',
            options: {
                auth: managerPage,
                handler: (request, h) => formPage(request, h, { url: 'https://', description: '', resources: [] })
            }
        },
        {
            method: 'POST',
            path: '/manage/apis/webhooks',
            options: sentOnce(context, {
                auth: managerPage,
                validate: { payload: Joi.object({ url: freeText('webhookUrl'), description: freeText('webhookDescription'), resources: ticks }) },
                makes: 'webhook-endpoint',
                back: () => '/manage/apis',
                async handler(request, h) {

                    const form = request.payload as EndpointForm;
                    const familyLongId = ownFamilyId(request);
                    let created;
                    try {
                        created = await webhookServices(request).createEndpoint(familyLongId, form, siteUser(request).id);
                    }
                    catch (error) {
                        return { page: await formPage(request, h, form, refusalOf(error)) };
                    }

                    await audit(models, request, { action: 'webhook.create', familyLongId, target: created.endpoint.id, detail: `${created.endpoint.url} (${created.endpoint.resources.join(', ')})` });
                    // The secret is on this page only: never in a redirect URL, a cookie or the session (hence sentOnce).
                    return { page: h.view('webhook-secret', { title: 'Your webhook signing secret', endpoint: endpointRow(created.endpoint), secret: created.secret, created: true }).code(201), made: created.endpoint.url };
                }
            })
        },
        {
            method: 'GET',
            path: '/manage/apis/webhooks/{id}',
            options: {
                auth: managerPage,
                validate: { ...endpointId, query: endpointPageQuery },
                async handler(request, h) {

                    const familyLongId = ownFamilyId(request);
                    const { test, redelivery } = request.query as { test?: string; redelivery?: string };
                    const ofThisEndpoint = (attempt?: { endpointId: string }) => (attempt?.endpointId === request.params.id ? attempt : undefined);
                    return endpointPage(request, h, {
                        testResult: ofThisEndpoint(await manualAttempt(models, familyLongId, test, 'ping')),
                        redeliveryResult: ofThisEndpoint(await manualAttempt(models, familyLongId, redelivery, 'redeliver'))
                    });
                }
            }
        },
        {
            method: 'POST',
            path: '/manage/apis/webhooks/{id}/test',
            options: {
                auth: managerPage,
                validate: endpointId,
                async handler(request, h) {

                    let attempt;
                    try {
                        attempt = await webhookServices(request).ping(ownFamilyId(request), request.params.id as string);
                    }
                    catch (error) {
                        return refusedPage(request, h, error);
                    }

                    const { outcome, delivery } = attempt;
                    await audit(models, request, { action: 'webhook.test', familyLongId: ownFamilyId(request), target: request.params.id as string, detail: outcome.delivered ? `delivered (${outcome.result.statusCode})` : `failed: ${outcome.result.error ?? outcome.result.statusCode}` });
                    // Post/redirect/get: reloading the page that shows the outcome must not send another test event.
                    return h.redirect(`${base(request.params.id as string)}?test=${delivery.id}`);
                }
            }
        },
        {
            method: 'POST',
            path: '/manage/apis/webhooks/{id}/rotate',
            options: sentOnce(context, {
                auth: managerPage,
                validate: endpointId,
                makes: 'webhook-secret',
                back: (request) => base(request.params.id as string),
                async handler(request, h) {

                    const { endpoint, secret } = await found(webhookServices(request).rotateSecret(ownFamilyId(request), request.params.id as string));
                    await audit(models, request, { action: 'webhook.rotate_secret', familyLongId: ownFamilyId(request), target: endpoint.id });
                    return { page: h.view('webhook-secret', { title: 'Your new webhook signing secret', endpoint: endpointRow(endpoint), secret, previousExpiresAt: endpoint.previous_secret_expires_at }), made: endpoint.url };
                }
            })
        },
        {
            method: 'POST',
            path: '/manage/apis/webhooks/{id}/disable',
            options: change('disable', (request) => webhookServices(request).disableEndpoint(ownFamilyId(request), request.params.id as string, siteUser(request).id))
        },
        {
            method: 'POST',
            path: '/manage/apis/webhooks/{id}/enable',
            options: change('enable', (request) => webhookServices(request).enableEndpoint(ownFamilyId(request), request.params.id as string))
        },
        {
            method: 'GET',
            path: '/manage/apis/webhooks/{id}/delete',
            options: {
                auth: managerPage,
                validate: endpointId,
                async handler(request, h) {

                    const endpoint = await found(webhookServices(request).findEndpoint(ownFamilyId(request), request.params.id as string));
                    return h.view('webhook-delete', { title: 'Delete webhook endpoint', endpoint: endpointRow(endpoint) });
                }
            }
        },
        {
            method: 'POST',
            path: '/manage/apis/webhooks/{id}/delete',
            options: {
                auth: managerPage,
                validate: endpointId,
                async handler(request, h) {

                    const familyLongId = ownFamilyId(request);
                    const id = request.params.id as string;
                    try {
                        await found(webhookServices(request).removeEndpointAudited(request, familyLongId, id));
                    }
                    catch (error) {
                        // Sent twice (a double click, a second tab), the form finds the endpoint gone: done already, not a 404.
                        if (!(Boom.isBoom(error, 404) && await deletedByFamily(familyLongId, id))) {
                            throw error;
                        }
                    }

                    return h.redirect(withNotice('/manage/apis', 'webhook-deleted'));
                }
            }
        },
        {
            method: 'POST',
            path: '/manage/apis/webhooks/{id}/deliveries/{deliveryId}/redeliver',
            options: {
                auth: managerPage,
                validate: { params: Joi.object({ id: idParam, deliveryId: idParam }) },
                async handler(request, h) {

                    const { id, deliveryId } = request.params as { id: string; deliveryId: string };
                    let outcome;
                    try {
                        ({ outcome } = await webhookServices(request).redeliver(ownFamilyId(request), id, deliveryId));
                    }
                    catch (error) {
                        return refusedPage(request, h, error);
                    }

                    await audit(models, request, { action: 'webhook.redeliver', familyLongId: ownFamilyId(request), target: deliveryId, detail: outcome.delivered ? 'delivered' : `failed: ${outcome.result.error ?? outcome.result.statusCode}` });
                    return h.redirect(`${base(id)}?redelivery=${deliveryId}`);
                }
            }
        }
    ];
}
