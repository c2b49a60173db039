import Crypto from 'crypto';

/** A new Idempotency-Key: one per write, the same one again when that write is retried. */
export function newIdempotencyKey(): string {

    return Crypto.randomUUID();
}
