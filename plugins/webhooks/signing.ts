import Crypto from 'crypto';

/*
 * DESIGN.md §5's signature, and Standard Webhooks' (https://www.standardwebhooks.com)
 * so receivers can use its verifier libraries. A secret is `whsec_` + base64 of 32 random
 * bytes, the format Standard Webhooks requires.
 *
 * - X-Service-Signature: `sha256=` + hex HMAC-SHA256 keyed with the secret as shown
 *   (the whole `whsec_…` text), over `<timestamp>.<raw body>`.
 * - webhook-signature: `v1,` + base64 HMAC-SHA256 keyed with the secret's decoded bytes,
 *   over `<webhook-id>.<timestamp>.<raw body>`; space-separated, one per signing secret.
 *
 * During a rotation's overlap both secrets sign: the new one in X-Service-Signature and
 * the previous one in X-Service-Signature-Previous (so a receiver written from DESIGN.md
 * alone can still verify with the secret it has), and both in webhook-signature.
 */

const secretPrefix = 'whsec_';

export const userAgent = 'FamilyRecords-Webhooks/1';

export function newSecret(): string {

    return secretPrefix + Crypto.randomBytes(32).toString('base64');
}

export interface SignedRequest {
    deliveryId: string;
    eventType: string;
    /** Unix seconds of this attempt. */
    timestamp: number;
    body: string;
    /** The current secret first, then the previous one while the rotation overlaps. */
    secrets: readonly string[];
}

function serviceSignature(secret: string, timestamp: number, body: string): string {

    return `sha256=${Crypto.createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

function standardSignature(secret: string, id: string, timestamp: number, body: string): string {

    const key = Buffer.from(secret.slice(secretPrefix.length), 'base64');
    return `v1,${Crypto.createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** Every header of a delivery attempt. */
export function deliveryHeaders(request: SignedRequest): Record<string, string> {

    const [current, previous] = request.secrets;
    const headers: Record<string, string> = {
        'content-type': 'application/json',
        'user-agent': userAgent,
        'x-service-event': request.eventType,
        'x-service-delivery': request.deliveryId,
        'x-service-timestamp': String(request.timestamp),
        'x-service-signature': serviceSignature(current, request.timestamp, request.body),
        'webhook-id': request.deliveryId,
        'webhook-timestamp': String(request.timestamp),
        'webhook-signature': request.secrets.map((secret) => standardSignature(secret, request.deliveryId, request.timestamp, request.body)).join(' ')
    };

    if (previous) {
        headers['x-service-signature-previous'] = serviceSignature(previous, request.timestamp, request.body);
    }

    return headers;
}
