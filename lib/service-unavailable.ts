import type Boom from '@hapi/boom';

import { answerInstead, apiError } from './errors';

/**
 * Seconds a client is asked to wait (Retry-After) when a dependency does not answer. A PostgreSQL
 * restart or the pool's reconnection takes a few seconds, and SQLite gives up on a lock after its 5 s
 * busy timeout; a client that came back sooner would mostly meet the same outage and add to the load
 * of a database that is recovering. Clients back off from there.
 */
export const retryAfterSeconds = 5;

/** The `503 service_unavailable` with Retry-After for a dependency that does not answer; `message` says which and what to do. */
export function serviceUnavailable(message: string): Boom.Boom {

    const error = apiError(503, 'service_unavailable', message);
    error.output.headers['Retry-After'] = String(retryAfterSeconds);
    return error;
}

/**
 * Makes `error`, a failure because the database did not answer (lib/database-unavailable.ts), the
 * `503 service_unavailable` clients retry, with Retry-After, instead of the 500 that says "a bug,
 * report it". In place (answerInstead()), so that the hosted site's pages see the 503.
 */
export function becomeServiceUnavailable(error: Boom.Boom): void {

    answerInstead(error, 503, 'service_unavailable', `The service's database is not answering just now: retry after ${retryAfterSeconds} seconds.`);
    error.output.headers['Retry-After'] = String(retryAfterSeconds);
}
