import type { Request, ResponseToolkit, RouteOptions, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';

import { audit, type AuditAction } from '../../lib/audit-log';
import { apiError, ServiceError } from '../../lib/errors';
import { storableText } from '../../lib/storable-text';
import { stringOfAtMost } from '../../lib/text-length';
import { textLimits } from '../../lib/text-limits';
import { removeEndpointAudited } from './audited-removal';
import type { WebhooksContext } from './context';
import { getDelivery, listDeliveries, ping, redeliver, type ImmediateAttempt } from './deliveries';
import { createEndpoint, disableEndpoint, enableEndpoint, findEndpoint, listEndpoints, rotateSecret, updateEndpoint } from './endpoints';
import { attemptJson, deliveryJson, endpointJson, outcomeJson } from './serialize';

/** What this plugin reads of the hosted site's `site-session` credentials. */
interface SignedInManager {
    user: { id: string; email: string; familyLongId: string };
}

// Family managers only, from the hosted site's session; JSON clients send the CSRF token as
// X-CSRF-Token (withCsrfCheck(), index.ts), and one without a session gets a 401, not the sign-in page's redirect.
const managerRoute: RouteOptions = {
    auth: { strategy: 'site-session', access: { scope: ['manager'] } },
    plugins: { site: { signInRedirect: false } }
};

const id = Joi.string().pattern(/^[a-z]+_[0-9A-Za-z]{8,40}$/).required();
const endpointParams = Joi.object({ id });
const deliveryParams = Joi.object({ id, deliveryId: id });
const resources = Joi.array().items(Joi.string().max(32)).min(1).max(32);
const description = storableText(stringOfAtMost(textLimits.webhookDescription)).allow('', null);
const url = storableText(stringOfAtMost(textLimits.webhookUrl));
const disableReason = storableText(stringOfAtMost(textLimits.webhookDisableReason).trim().min(1));

function manager(request: Request): SignedInManager['user'] {

    return (request.auth.credentials as unknown as SignedInManager).user;
}

/** A service's refusal as the API's error contract. */
async function answered<T>(work: Promise<T>): Promise<T> {

    try {
        return await work;
    }
    catch (error) {
        if (error instanceof ServiceError) {
            throw apiError(error.statusCode, error.code, error.message);
        }

        throw error;
    }
}

/** A manager's action in the hosted site's audit log (the same actions its pages record). */
function auditAction(context: WebhooksContext, request: Request, action: AuditAction, target: string, detail: string | null = null): Promise<void> {

    return audit(context.models, request, { action, familyLongId: manager(request).familyLongId, target, detail });
}

function immediateJson({ outcome, delivery }: ImmediateAttempt) {

    return { data: { delivery: deliveryJson(delivery), attempt: outcomeJson(outcome) } };
}

/**
 * JSON management of a family's webhook endpoints at /manage/webhooks, for its managers
 * (their own family only: any other id is a 404). The hosted-site pages call the same
 * services through server.plugins.webhooks.
 */
export function webhookRoutes(context: WebhooksContext): ServerRoute[] {

    const family = (request: Request) => manager(request).familyLongId;
    const endpointOf = (request: Request) => request.params.id as string;

    return [
        {
            method: 'GET',
            path: '/manage/webhooks',
            options: { ...managerRoute, description: 'List the family\'s webhook endpoints' },
            handler: async (request) => ({ data: (await answered(listEndpoints(context, family(request)))).map(endpointJson) })
        },
        {
            method: 'POST',
            path: '/manage/webhooks',
            options: {
                ...managerRoute,
                description: 'Add a webhook endpoint; its secret is in this answer only',
                validate: { payload: Joi.object({ url: url.required(), description, resources: resources.required() }) }
            },
            handler: async (request, h: ResponseToolkit) => {

                const input = request.payload as { url: string; description?: string; resources: string[] };
                const { endpoint, secret } = await answered(createEndpoint(context, family(request), input, manager(request).id));
                await auditAction(context, request, 'webhook.create', endpoint.id, `${endpoint.url} (${endpoint.resources.join(', ')})`);
                return h.response({ data: { ...endpointJson(endpoint), secret } }).code(201);
            }
        },
        {
            method: 'GET',
            path: '/manage/webhooks/{id}',
            options: { ...managerRoute, validate: { params: endpointParams } },
            handler: async (request) => ({ data: endpointJson(await answered(findEndpoint(context, family(request), endpointOf(request)))) })
        },
        {
            method: 'PATCH',
            path: '/manage/webhooks/{id}',
            options: {
                ...managerRoute,
                validate: { params: endpointParams, payload: Joi.object({ url, description, resources }).min(1) }
            },
            handler: async (request) => ({ data: endpointJson(await answered(updateEndpoint(context, family(request), endpointOf(request), request.payload as object))) })
        },
        {
            method: 'DELETE',
            path: '/manage/webhooks/{id}',
            options: { ...managerRoute, validate: { params: endpointParams } },
            handler: async (request) => {

                const endpoint = await answered(removeEndpointAudited(context, request, family(request), endpointOf(request)));
                return { data: { id: endpoint.id, deleted: true } };
            }
        },
        {
            method: 'POST',
            path: '/manage/webhooks/{id}/rotate-secret',
            options: {
                ...managerRoute,
                description: 'A new secret (in this answer only); the previous one signs too for the overlap',
                validate: { params: endpointParams }
            },
            handler: async (request) => {

                const { endpoint, secret } = await answered(rotateSecret(context, family(request), endpointOf(request)));
                await auditAction(context, request, 'webhook.rotate_secret', endpoint.id);
                return { data: { ...endpointJson(endpoint), secret } };
            }
        },
        {
            method: 'POST',
            path: '/manage/webhooks/{id}/disable',
            options: {
                ...managerRoute,
                validate: { params: endpointParams, payload: Joi.object({ reason: disableReason }).allow(null) }
            },
            handler: async (request) => {

                const reason = (request.payload as { reason?: string } | null)?.reason;
                const endpoint = await answered(disableEndpoint(context, family(request), endpointOf(request), manager(request).id, reason));
                await auditAction(context, request, 'webhook.disable', endpoint.id, endpoint.disabled_reason);
                return { data: endpointJson(endpoint) };
            }
        },
        {
            method: 'POST',
            path: '/manage/webhooks/{id}/enable',
            options: { ...managerRoute, validate: { params: endpointParams } },
            handler: async (request) => {

                const endpoint = await answered(enableEndpoint(context, family(request), endpointOf(request)));
                await auditAction(context, request, 'webhook.enable', endpoint.id);
                return { data: endpointJson(endpoint) };
            }
        },
        {
            method: 'POST',
            path: '/manage/webhooks/{id}/ping',
            options: {
                ...managerRoute,
                description: 'Send a test (ping) event now and report how it went',
                validate: { params: endpointParams }
            },
            handler: async (request) => {

                const attempt = await answered(ping(context, family(request), endpointOf(request)));
                await auditAction(context, request, 'webhook.test', endpointOf(request), attempt.outcome.delivered ? 'delivered' : attempt.outcome.result.error);
                return immediateJson(attempt);
            }
        },
        {
            method: 'GET',
            path: '/manage/webhooks/{id}/deliveries',
            options: {
                ...managerRoute,
                validate: { params: endpointParams, query: Joi.object({ limit: Joi.number().integer().min(1).max(100), cursor: Joi.string().max(200) }) }
            },
            handler: async (request) => {

                const page = await answered(listDeliveries(context, family(request), endpointOf(request), request.query));
                return { data: page.deliveries.map(deliveryJson), meta: { count: page.deliveries.length, next_cursor: page.nextCursor } };
            }
        },
        {
            method: 'GET',
            path: '/manage/webhooks/{id}/deliveries/{deliveryId}',
            options: { ...managerRoute, validate: { params: deliveryParams } },
            handler: async (request) => {

                const { delivery, attempts } = await answered(getDelivery(context, family(request), endpointOf(request), request.params.deliveryId as string));
                return { data: { ...deliveryJson(delivery), attempt_log: attempts.map(attemptJson) } };
            }
        },
        {
            method: 'POST',
            path: '/manage/webhooks/{id}/deliveries/{deliveryId}/redeliver',
            options: {
                ...managerRoute,
                description: 'Send one delivery again now (same delivery id) and report how it went',
                validate: { params: deliveryParams }
            },
            handler: async (request) => {

                const attempt = await answered(redeliver(context, family(request), endpointOf(request), request.params.deliveryId as string));
                await auditAction(context, request, 'webhook.redeliver', request.params.deliveryId as string, attempt.outcome.delivered ? 'delivered' : attempt.outcome.result.error);
                return immediateJson(attempt);
            }
        }
    ];
}
