import type { Lifecycle, Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import Boom from '@hapi/boom';
import Joi from 'joi';

import { findFamily } from '../../../lib/accounts/families';
import { ownFamilyId, siteUser } from '../credentials';
import type { SiteContext } from '../context';
import { sentOnce } from '../form-tokens';
import { formAction, redirectWithNotice } from '../form-action';
import { found, freeText, idParam, ticks, type Refusal } from '../forms';
import type { Notice } from '../notices';
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

    async function formPage(request: Request, h: ResponseToolkit, form: EndpointForm, error?: Refusal) {

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
    const refusedPage = (request: Request, h: ResponseToolkit, refusal: Refusal) => endpointPage(request, h, { error: refusal.message }, refusal.statusCode);

    /**
     * Whether the family's own audit log records deleting the endpoint (committed with the
     * deletion): nothing else is left of it, and only its family learns that it was there
     * (another family's id stays a 404).
     */
    async function deletedByFamily(familyLongId: string, id: string): Promise<boolean> {

        return await models.AuditEvent.count({ where: { action: 'webhook.delete', family_long_id: familyLongId, target: id } }) > 0;
    }

    const newEndpointForm: Lifecycle.Method = (request, h) => formPage(request, h, { url: 'https://', description: '', resources: [] });

    const createEndpoint = formAction(models, {
        run: (request) => {

            const { url, description, resources } = request.payload as EndpointForm;
            return webhookServices(request).createEndpoint(ownFamilyId(request), { url, description, resources }, siteUser(request).id);
        },
        refused: async (request, h, refusal) => ({ page: await formPage(request, h, request.payload as EndpointForm, refusal) }),
        audited: (request, { endpoint }) => ({ action: 'webhook.create', familyLongId: ownFamilyId(request), target: endpoint.id, detail: `${endpoint.url} (${endpoint.resources.join(', ')})` }),
        // The secret is on this page only: never in a redirect URL, a cookie or the session (hence sentOnce).
        answer: (_request, h, { endpoint, secret }) => ({
            page: h.view('webhook-secret', { title: 'Your webhook signing secret', endpoint: endpointRow(endpoint), secret, created: true }).code(201),
            made: endpoint.url
        })
    });

    const showEndpoint: Lifecycle.Method = async (request, h) => {

        const familyLongId = ownFamilyId(request);
        const { test, redelivery } = request.query as { test?: string; redelivery?: string };
        const ofThisEndpoint = (attempt?: { endpointId: string }) => (attempt?.endpointId === request.params.id ? attempt : undefined);
        return endpointPage(request, h, {
            testResult: ofThisEndpoint(await manualAttempt(models, familyLongId, test, 'ping')),
            redeliveryResult: ofThisEndpoint(await manualAttempt(models, familyLongId, redelivery, 'redeliver'))
        });
    };

    const sendTestEvent = formAction(models, {
        run: (request) => webhookServices(request).ping(ownFamilyId(request), request.params.id as string),
        refused: refusedPage,
        audited: (request, { outcome }) => ({ action: 'webhook.test', familyLongId: ownFamilyId(request), target: request.params.id as string, detail: outcome.delivered ? `delivered (${outcome.result.statusCode})` : `failed: ${outcome.result.error ?? outcome.result.statusCode}` }),
        // Post/redirect/get: reloading the page that shows the outcome must not send another test event.
        answer: (request, h, { delivery }) => h.redirect(`${base(request.params.id as string)}?test=${delivery.id}`)
    });

    const rotateSecret = formAction(models, {
        run: (request) => found(webhookServices(request).rotateSecret(ownFamilyId(request), request.params.id as string)),
        audited: (request, { endpoint }) => ({ action: 'webhook.rotate_secret', familyLongId: ownFamilyId(request), target: endpoint.id }),
        answer: (_request, h, { endpoint, secret }) => ({
            page: h.view('webhook-secret', { title: 'Your new webhook signing secret', endpoint: endpointRow(endpoint), secret, previousExpiresAt: endpoint.previous_secret_expires_at }),
            made: endpoint.url
        })
    });

    /** Disables or enables the endpoint, audits it and goes back to its page with a notice. */
    const switchEndpoint = (action: 'disable' | 'enable', notice: Notice, run: (request: Request) => Promise<unknown>) => formAction(models, {
        run,
        refused: refusedPage,
        audited: (request) => ({ action: `webhook.${action}`, familyLongId: ownFamilyId(request), target: request.params.id as string }),
        answer: (request, h) => redirectWithNotice(h, base(request.params.id as string), notice)
    });

    const deleteConfirmation: Lifecycle.Method = async (request, h) => {

        const endpoint = await found(webhookServices(request).findEndpoint(ownFamilyId(request), request.params.id as string));
        return h.view('webhook-delete', { title: 'Delete webhook endpoint', endpoint: endpointRow(endpoint) });
    };

    // The deletion is audited in its own transaction (removeEndpointAudited).
    const deleteEndpoint = formAction(models, {
        async run(request) {

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
        },
        answer: (_request, h) => redirectWithNotice(h, '/manage/apis', 'webhook-deleted')
    });

    const redeliver = formAction(models, {
        run: (request) => webhookServices(request).redeliver(ownFamilyId(request), request.params.id as string, request.params.deliveryId as string),
        refused: refusedPage,
        audited: (request, { outcome }) => ({ action: 'webhook.redeliver', familyLongId: ownFamilyId(request), target: request.params.deliveryId as string, detail: outcome.delivered ? 'delivered' : `failed: ${outcome.result.error ?? outcome.result.statusCode}` }),
        answer: (request, h) => h.redirect(`${base(request.params.id as string)}?redelivery=${request.params.deliveryId as string}`)
    });

    return [
        {
            method: 'GET',
            path: '/manage/apis/webhooks/new',
            options: { auth: managerPage, handler: newEndpointForm }
        },
        {
            method: 'POST',
            path: '/manage/apis/webhooks',
            options: sentOnce(context, {
                auth: managerPage,
                validate: { payload: Joi.object({ url: freeText('webhookUrl'), description: freeText('webhookDescription'), resources: ticks }) },
                makes: 'webhook-endpoint',
                back: () => '/manage/apis',
                handler: createEndpoint
            })
        },
        {
            method: 'GET',
            path: '/manage/apis/webhooks/{id}',
            options: { auth: managerPage, validate: { ...endpointId, query: endpointPageQuery }, handler: showEndpoint }
        },
        {
            method: 'POST',
            path: '/manage/apis/webhooks/{id}/test',
            options: { auth: managerPage, validate: endpointId, handler: sendTestEvent }
        },
        {
            method: 'POST',
            path: '/manage/apis/webhooks/{id}/rotate',
            options: sentOnce(context, { auth: managerPage, validate: endpointId, makes: 'webhook-secret', back: (request) => base(request.params.id as string), handler: rotateSecret })
        },
        {
            method: 'POST',
            path: '/manage/apis/webhooks/{id}/disable',
            options: {
                auth: managerPage,
                validate: endpointId,
                handler: switchEndpoint('disable', 'webhook-disabled', (request) => webhookServices(request).disableEndpoint(ownFamilyId(request), request.params.id as string, siteUser(request).id))
            }
        },
        {
            method: 'POST',
            path: '/manage/apis/webhooks/{id}/enable',
            options: {
                auth: managerPage,
                validate: endpointId,
                handler: switchEndpoint('enable', 'webhook-enabled', (request) => webhookServices(request).enableEndpoint(ownFamilyId(request), request.params.id as string))
            }
        },
        {
            method: 'GET',
            path: '/manage/apis/webhooks/{id}/delete',
            options: { auth: managerPage, validate: endpointId, handler: deleteConfirmation }
        },
        {
            method: 'POST',
            path: '/manage/apis/webhooks/{id}/delete',
            options: { auth: managerPage, validate: endpointId, handler: deleteEndpoint }
        },
        {
            method: 'POST',
            path: '/manage/apis/webhooks/{id}/deliveries/{deliveryId}/redeliver',
            options: {
                auth: managerPage,
                validate: { params: Joi.object({ id: idParam, deliveryId: idParam }) },
                handler: redeliver
            }
        }
    ];
}
