import { ApiError, offlineOr, retryAfterOf } from './errors';

export interface HttpOptions extends RequestInit {
    /** How long the answer may take, body included, before the service counts as unreachable; none: no limit. */
    timeoutMs?: number;
}

/** The requests of the SDK wait this long by default: a service that answers nothing in time is offline to the caller. */
export const defaultTimeoutMs = 30_000;

/** fetch(), with a network failure or timeout turned into an OfflineError; the caller's own abort stays an AbortError. */
export async function httpFetch(url: string, options: HttpOptions = {}): Promise<Response> {

    const { timeoutMs = defaultTimeoutMs, signal, ...init } = options;
    const signals = [signal, timeoutMs ? AbortSignal.timeout(timeoutMs) : undefined].filter((one): one is AbortSignal => !!one);
    try {
        return await fetch(url, { ...init, signal: signals.length ? AbortSignal.any(signals) : undefined });
    }
    catch (error) {
        throw offlineOr(error, `${init.method ?? 'GET'} ${url}`);
    }
}

/** The JSON body of an answer (undefined when empty); a body cut off on the way is an OfflineError. */
export async function jsonOf(response: Response): Promise<unknown> {

    let text: string;
    try {
        text = await response.text();
    }
    catch (error) {
        throw offlineOr(error, `Reading the answer of ${response.url}`);
    }

    if (!text) {
        return undefined;
    }

    try {
        return JSON.parse(text);
    }
    catch {
        return { message: text.slice(0, 500) };
    }
}

/** The ApiError of an error answer. */
export async function apiErrorOf(response: Response): Promise<ApiError> {

    const body = await jsonOf(response);
    return new ApiError(response.status, body && typeof body === 'object' ? body : {}, retryAfterOf(response.headers.get('retry-after')));
}
