import type { WebhookEndpoint } from '../../models/webhook-endpoint';
import type { WebhooksContext } from './context';
import { decryptSecret, encryptSecret } from './secret-box';
import { newSecret } from './signing';

/** A fresh secret for the endpoint: the plaintext to show once, and the columns that keep it. */
export function sealedNewSecret(context: WebhooksContext, endpointId: string) {

    const secret = newSecret();
    return { secret, columns: { secret_encrypted: encryptSecret(context.secretKey, secret, endpointId), secret_last_four: secret.slice(-4) } };
}

/** The secrets that sign a delivery now: the current one, then the previous one while a rotation overlaps. */
export function signingSecrets(context: WebhooksContext, endpoint: WebhookEndpoint, now: Date): string[] {

    const secrets = [decryptSecret(context.secretKey, endpoint.secret_encrypted, endpoint.id)];
    if (endpoint.previous_secret_encrypted && endpoint.previous_secret_expires_at && endpoint.previous_secret_expires_at > now) {
        secrets.push(decryptSecret(context.secretKey, endpoint.previous_secret_encrypted, endpoint.id));
    }

    return secrets;
}
