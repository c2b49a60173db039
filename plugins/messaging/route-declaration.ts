import type { Lifecycle, PluginSpecificConfiguration, Request, ResponseObject, ResponseToolkit, RouteOptions, ServerRoute } from '@hapi/hapi';

import { principalOf } from '../../gateway/principal';
import { apiError } from '../../lib/errors';
import { idempotencyKeyOf, requestFingerprint } from '../../lib/idempotency-key-header';
import { answerOnce, type IdempotentAnswer, type RecordAnswer } from '../../lib/messaging/idempotency';
import { messagingOf } from './actor';
import { messagingSchemas } from './response-docs';

/** The token scopes the messaging routes need (policies/messaging.yaml). */
export type MessagingScope = 'messages:read' | 'messages:write';

type Docs = NonNullable<PluginSpecificConfiguration['docs']>;

/** What every messaging route declares: its route group's auth, the token scope the gateway checks, its tag and its reference. */
export type RouteDeclaration = (scope: MessagingScope, docs?: Docs) => Pick<RouteOptions, 'auth' | 'plugins' | 'tags'>;

export function routeDeclaration(routeGroup: string, tag: string): RouteDeclaration {

    return (scope, docs) => ({
        auth: routeGroup,
        tags: ['api', tag],
        plugins: {
            gateway: { scope },
            // Every write reads Idempotency-Key: documented on each, with the codes it brings (409 while the first request runs).
            docs: { ...docs, schemas: messagingSchemas, ...(scope === 'messages:write' ? idempotencyDocs(docs) : {}) }
        }
    });
}

function idempotencyDocs(docs: Docs = {}): Docs {

    const required = docs.requiredHeaders?.includes('Idempotency-Key') ?? false;
    return {
        headers: [...docs.headers ?? [], 'Idempotency-Key'],
        errors: [...docs.errors ?? [], 'conflict'],
        headerTexts: {
            ...docs.headerTexts,
            'Idempotency-Key': `${required ? 'Required' : 'Optional'}: makes a retry safe. The write is carried out once per key of this device and route; the same key with the same body `
                + 'within 24 hours answers again what the first did (with `Idempotent-Replayed: true`), changing nothing. With another body it is 422 `idempotency_key_reused`; '
                + 'while the first request is still running, 409 `conflict` (retry it in a moment). A request that fails keeps nothing, so a corrected retry may keep its key. '
                + `Use a new random key (a UUID) per write. A key that is not 1 to 255 printable ASCII characters is 400${required ? ', and so is none' : ''}.`
        },
        errorTexts: {
            ...docs.errorTexts,
            conflict: [docs.errorTexts?.conflict, 'A request with this Idempotency-Key is still being processed: retry it in a moment.'].filter(Boolean).join(' Or: ')
        }
    };
}

/** Where a write that runs under a key stores its answer in its own transaction, when it can (a send). */
const answerKeepers = new WeakMap<Request, RecordAnswer>();

/**
 * How a handler stores its answer in its write's transaction, with what it writes: then the two commit together,
 * and a process stopped between them cannot leave a key without its answer. Undefined without a key.
 */
export const answerKeeperOf = (request: Request): RecordAnswer | undefined => answerKeepers.get(request);

/** What a handler answered, to be kept and replayed: its status, body and ETag. */
function keptAnswer(answered: ResponseObject | object): IdempotentAnswer {

    const response = answered as Partial<ResponseObject>;
    if (typeof response.code !== 'function') {
        return { status: 200, body: answered };
    }

    const etag = response.headers?.etag as string | undefined;
    return { status: response.statusCode ?? 200, body: (response.source ?? {}) as object, headers: etag ? { etag } : {} };
}

function replayed(h: ResponseToolkit, answer: IdempotentAnswer, wasReplayed: boolean): ResponseObject {

    const response = answer.status === 204 ? h.response().code(204) : h.response(answer.body).code(answer.status);
    for (const [name, value] of Object.entries(answer.headers ?? {})) {
        response.header(name, value);
    }

    return wasReplayed ? response.header('Idempotent-Replayed', 'true') : response;
}

/**
 * A write route, answered once per `Idempotency-Key` of the device and route (lib/messaging/idempotency.ts):
 * the same key and body replay the first answer. `keyRequired`: a request without a key is 400 (sends).
 */
export function writeRoute(route: ServerRoute, { keyRequired = false } = {}): ServerRoute {

    const handler = route.handler as Lifecycle.Method;
    return {
        ...route,
        async handler(request: Request, h: ResponseToolkit) {

            const key = idempotencyKeyOf(request);
            if (key === undefined) {
                if (keyRequired) {
                    throw apiError(400, 'invalid_request', 'Idempotency-Key is required: send a new random key (a UUID) with each message, and the same key when you retry it.');
                }

                return handler.call(this, request, h);
            }

            // The route as it is below the API's prefix: what the outbox names for its items (lib/messaging/conflicts.ts itemKeyRoute).
            const prefix = request.route.realm.modifiers.route.prefix ?? '';
            const scope = {
                grantId: principalOf(request).device!.grantId,
                route: `${request.method.toUpperCase()} ${request.route.path.slice(prefix.length)}`,
                key,
                fingerprint: requestFingerprint(request.path, request.payload)
            };
            const { answer, replayed: wasReplayed } = await answerOnce(messagingOf(request).models, scope, async (recordAnswer) => {

                answerKeepers.set(request, recordAnswer);
                return keptAnswer(await handler.call(this, request, h) as ResponseObject | object);
            });
            return replayed(h, answer, wasReplayed);
        }
    };
}
