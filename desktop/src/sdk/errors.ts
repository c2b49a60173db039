/** A JSON error answer of the service (`{"statusCode", "error", "message", "code", …}`). */
export class ApiError extends Error {

    readonly status: number;
    readonly code: string;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the service's JSON: `current` of a 412, the fields a code brings
    readonly body: any;
    readonly retryAfterSeconds?: number;

    constructor(status: number, body: { message?: unknown; code?: unknown }, retryAfterSeconds?: number) {

        super(typeof body.message === 'string' ? body.message : `The service answered ${status}`);
        this.name = 'ApiError';
        this.status = status;
        this.code = typeof body.code === 'string' ? body.code : `http_${status}`;
        this.body = body;
        this.retryAfterSeconds = retryAfterSeconds;
    }
}

/** An error answer of the OAuth endpoints (RFC 6749 §5.2). */
export class OAuthError extends Error {

    readonly status: number;
    readonly error: string;
    readonly description?: string;
    readonly retryAfterSeconds?: number;

    constructor(status: number, error: string, description?: string, retryAfterSeconds?: number) {

        super(description ? `${error}: ${description}` : error);
        this.name = 'OAuthError';
        this.status = status;
        this.error = error;
        this.description = description;
        this.retryAfterSeconds = retryAfterSeconds;
    }
}

/** The service could not be reached (refused, reset, DNS, timeout): the caller keeps its work and tries later. */
export class OfflineError extends Error {

    constructor(message: string, options?: { cause?: unknown }) {

        super(message, options);
        this.name = 'OfflineError';
    }
}

/** The device's grant is gone (its refresh refused, or a fresh token refused): the device must be connected again. */
export class SignedOutError extends Error {

    constructor(message = 'This device is no longer connected to the service: connect it again.') {

        super(message);
        this.name = 'SignedOutError';
    }
}

/** What an error may say of its cause: Node's system errors have a `code`, undici's fetch errors a `cause`. */
interface Cause {
    name?: string;
    code?: string;
    message?: string;
    cause?: unknown;
}

const networkCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH',
    'ENETDOWN', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CLOSED']);

/** Whether an error (or one of its causes) says the service could not be reached or the connection broke. */
export function isNetworkFailure(error: unknown): boolean {

    for (let current = error as Cause | undefined, depth = 0; current && depth < 5; current = current.cause as Cause | undefined, ++depth) {
        if (current instanceof OfflineError || current.name === 'TimeoutError' || networkCodes.has(current.code!)) {
            return true;
        }

        // undici's fetch: "fetch failed", "terminated" (the body's connection went), with the reason as its cause.
        if (current instanceof TypeError && ['fetch failed', 'terminated'].includes(current.message)) {
            return true;
        }
    }

    return false;
}

/** `error` as an OfflineError when it is a network failure; otherwise itself. */
export function offlineOr(error: unknown, what: string): unknown {

    if (error instanceof OfflineError || !isNetworkFailure(error)) {
        return error;
    }

    const reason = ((error as Cause).cause as Cause | undefined)?.code ?? (error as Cause).code ?? (error as Cause).message;
    return new OfflineError(`${what}: the service could not be reached (${reason}).`, { cause: error });
}

/** The seconds of a Retry-After header (its delay form; a date counts from now). */
export function retryAfterOf(value: string | null | undefined): number | undefined {

    if (!value) {
        return undefined;
    }

    const seconds = Number(value);
    if (Number.isFinite(seconds)) {
        return Math.max(0, seconds);
    }

    const date = Date.parse(value);
    return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}
