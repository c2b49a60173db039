import type { Lifecycle, Request, ResponseToolkit } from '@hapi/hapi';
import Boom from '@hapi/boom';

import { OAuthError, type OAuthErrorCode } from '../../lib/accounts/oauth-error';

/** RFC 6749 §5.1: token answers, and any other answer of these endpoints, are never cached. */
function noStore<T extends { header(name: string, value: string): T }>(response: T): T {

    return response.header('Cache-Control', 'no-store').header('Pragma', 'no-cache');
}

/** A JSON answer of an OAuth endpoint. */
export function oauthAnswer(h: ResponseToolkit, body: object | null, statusCode = 200): Lifecycle.ReturnValue {

    return noStore(h.response(body ?? undefined).code(statusCode));
}

// What a refusal that is no OAuthError (hapi's: a bad form, a wrong Content-Type, the rate limit) means to an OAuth client.
const errorByStatus: Record<number, OAuthErrorCode> = { 401: 'invalid_client', 429: 'slow_down' };

function errorAnswer(h: ResponseToolkit, error: string, description: string, status: number, headers: Record<string, string | number> = {}) {

    const answer = noStore(h.response({ error, error_description: description }).code(status));
    for (const [name, value] of Object.entries(headers)) {
        answer.header(name, String(value));
    }

    if (status === 401) {
        // RFC 6749 §5.2: a 401 names a scheme a client could authenticate with; public clients send client_id in the body.
        answer.header('WWW-Authenticate', 'Basic realm="family-records"');
    }

    return answer;
}

/** A handler whose OAuthErrors are answers (authorization_pending is no failure), the rest hapi's. */
export function oauthHandler(work: (request: Request, h: ResponseToolkit) => Promise<Lifecycle.ReturnValue>): Lifecycle.Method {

    return async (request, h) => {

        try {
            return await work(request, h);
        }
        catch (error) {
            if (error instanceof OAuthError) {
                return errorAnswer(h, error.oauthError, error.message, error.statusCode);
            }

            throw error;
        }
    };
}

/**
 * Answers hapi's refusals of the OAuth endpoints (a bad form, a wrong Content-Type, the rate limit, a 500) as
 * RFC 6749 §5.2 JSON (`error`, `error_description`), never the service's Boom shape: an OAuth library reads
 * `error`. After the service's own onPreResponse step, which has logged a 500 and named its request id.
 */
export function answerAsOAuth(request: Request, h: ResponseToolkit): Lifecycle.ReturnValue {

    const response = request.response;
    if (!Boom.isBoom(response)) {
        return h.continue;
    }

    const status = response.output.statusCode;
    const error = status >= 500 ? 'server_error' : errorByStatus[status] ?? 'invalid_request';
    return errorAnswer(h, error, response.output.payload.message, status, response.output.headers as Record<string, string>);
}
