import { isDelivered, type AttemptTrigger } from '../../models/webhook-attempt';
import type { WebhookEndpoint } from '../../models/webhook-endpoint';
import type { ClaimedDelivery } from './claim';
import type { WebhooksContext } from './context';
import { checkDestination, DestinationRefused } from './destination';
import { signingSecrets } from './endpoint-secrets';
import { send, type SendResult } from './send';
import { deliveryHeaders } from './signing';

/** One attempt at a claimed delivery, as it happened; record.ts writes it down. */
export interface AttemptOutcome {
    claimed: ClaimedDelivery;
    trigger: AttemptTrigger;
    startedAt: Date;
    result: SendResult;
    /** Where the request went; null when the destination was refused. */
    address: string | null;
    delivered: boolean;
}

/** Why a response that arrived is not a success, when the status code alone does not say it. */
function responseError(result: SendResult): string | null {

    if (result.statusCode !== null && result.statusCode >= 300 && result.statusCode < 400) {
        return `redirect to ${result.location ?? '(no Location)'} not followed: point the endpoint at the final URL`;
    }

    return result.error;
}

/** An attempt that never reached the network. */
function notSent(claimed: ClaimedDelivery, trigger: AttemptTrigger, startedAt: Date, error: string): AttemptOutcome {

    const result = { statusCode: null, latencyMs: Date.now() - startedAt.getTime(), error, excerpt: null };
    return { claimed, trigger, startedAt, result, address: null, delivered: false };
}

/**
 * Checks the destination again (resolving the host now), signs the payload with the
 * endpoint's current secrets and POSTs it to the addresses that passed the check, in turn.
 * Never rejects: every failure is an outcome, so the retry schedule applies to it too.
 */
export async function attemptDelivery(context: WebhooksContext, claimed: ClaimedDelivery, endpoint: WebhookEndpoint, trigger: AttemptTrigger): Promise<AttemptOutcome> {

    const startedAt = new Date();
    const policy = context.policyStore.current().webhooks;
    try {
        const destination = await checkDestination(endpoint.url, policy.destinations, context.transport.resolve);
        const headers = deliveryHeaders({
            deliveryId: claimed.id,
            eventType: claimed.event_type,
            timestamp: Math.floor(startedAt.getTime() / 1000),
            body: claimed.payload,
            secrets: signingSecrets(context, endpoint, startedAt)
        });

        const limits = {
            connectTimeoutMs: policy.delivery.connect_timeout_ms,
            responseTimeoutMs: policy.delivery.response_timeout_ms,
            excerptBytes: policy.delivery.response_excerpt_bytes
        };

        const { address, ...result } = await send(destination, headers, claimed.payload, limits, context.transport.agent);
        return { claimed, trigger, startedAt, result: { ...result, error: responseError(result) }, address, delivered: isDelivered(result.statusCode) };
    }
    catch (error) {
        if (error instanceof DestinationRefused) {
            return notSent(claimed, trigger, startedAt, `destination refused: ${error.message}`);
        }

        // A secret that no longer decrypts (SECRET_KEY changed), say: logged, and retried like any failure.
        context.log(['webhooks', 'error'], `delivery ${claimed.id}: ${(error as Error).stack}`);
        return notSent(claimed, trigger, startedAt, `not sent: ${(error as Error).message}`);
    }
}
