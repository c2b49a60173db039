import { ConnectionError, TimeoutError } from 'sequelize';

/**
 * Why the database cannot do a piece of work right now: `unreachable`, it refused, dropped or never
 * answered the connection, or is shutting down, starting up or full; `busy`, SQLite's file stayed
 * locked by another connection past the busy timeout (lib/database.ts).
 */
export interface DatabaseUnavailable {
    reason: 'unreachable' | 'busy';
    /** The driver's own words, for one log line. */
    message: string;
}

// Node's socket codes on a connection the pg driver holds (pg/lib/connection.js): the server went away or never answered.
const socketCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE']);

// PostgreSQL's SQLSTATEs (Appendix A) of a server going down or not taking connections, besides class 08 (connection exceptions):
// 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now, 53300 too_many_connections.
const unavailableStates = new Set(['57P01', '57P02', '57P03', '53300']);

// What pg says, without a code, when the server closed the connection under it (pg/lib/client.js).
const droppedConnectionMessages = new Set(['Connection terminated unexpectedly', 'Client has encountered a connection error and is not queryable']);

// What pg says when a query had no answer within the query timeout (lib/database.ts): the server, or the network to it, went silent.
const unansweredQueryMessage = 'Query read timeout';

/** Where drivers and frameworks keep the error they wrap: Sequelize's `parent`/`original`, `cause`, Boom's `data`. */
const wrappedKeys = ['parent', 'original', 'cause', 'data'] as const;

/** How far to look inside wrappers: a Boom around a Sequelize error around the driver's is two steps. */
const maxDepth = 4;

function reasonOf(error: Error & { code?: unknown }): DatabaseUnavailable['reason'] | undefined {

    // Sequelize's ConnectionError covers refused, host not found or unreachable, timed out, access denied and the pool's acquire timeout.
    if (error instanceof ConnectionError) {
        return 'unreachable';
    }

    // Sequelize's TimeoutError is SQLite's SQLITE_BUSY (dialects/sqlite/query.js); the bare code comes from statements run on sqlite3 itself.
    if (error instanceof TimeoutError || error.code === 'SQLITE_BUSY') {
        return 'busy';
    }

    const code = typeof error.code === 'string' ? error.code : '';
    return socketCodes.has(code) || unavailableStates.has(code) || /^08[0-9A-Z]{3}$/.test(code) || droppedConnectionMessages.has(error.message) || error.message === unansweredQueryMessage ? 'unreachable' : undefined;
}

function unavailableWithin(error: unknown, depth: number, seen: Set<Error>): DatabaseUnavailable | undefined {

    if (!(error instanceof Error) || depth > maxDepth || seen.has(error)) {
        return undefined;
    }

    seen.add(error);
    const reason = reasonOf(error);
    if (reason) {
        return { reason, message: error.message };
    }

    for (const key of wrappedKeys) {
        const found = unavailableWithin((error as unknown as Record<string, unknown>)[key], depth + 1, seen);
        if (found) {
            return found;
        }
    }

    return undefined;
}

/**
 * Whether `error`, or an error it wraps, says the database cannot be reached or refuses work right now
 * (an outage, not a bug: the same request may succeed when retried); undefined for any other error.
 * Cheap (a few property reads) and never throws, whatever it is given.
 */
export function databaseUnavailable(error: unknown): DatabaseUnavailable | undefined {

    try {
        return unavailableWithin(error, 0, new Set());
    }
    catch {
        return undefined;           // a getter that throws, a revoked proxy: nothing that says the database is unavailable
    }
}
