import type { Lifecycle, Request, Server, ServerRoute } from '@hapi/hapi';
import type Boom from '@hapi/boom';

import { apiError } from './errors';
import { routeNames, routesWithoutStep, withRouteStep } from './route-steps';

/*
 * Three things hapi lets through when it reads a body it parses:
 * - a Content-Encoding it has no decoder for (br, zstd, a typo): it reads the bytes as if not
 *   encoded, so a brotli body would be "Invalid request payload JSON format" and a mislabelled
 *   one taken;
 * - bytes that are not UTF-8: it decodes them to U+FFFD, so a name sent in Latin-1 would be
 *   stored with a replacement character in place of its "é", and answered 201;
 * - a request with `Expect: 100-continue` whose Content-Length is over the route's limit: it
 *   writes 100 Continue as it starts reading, before it compares the length with the limit, so
 *   the client sent the whole body only to be refused.
 * All are refused after authentication, like any other bad body: counted against the rate
 * limit, with its headers.
 */

/** Media types hapi decodes as UTF-8 text: JSON, text and forms (multipart parts and binary bodies are bytes). */
const textMediaType = /^(?:application\/(?:.+\+)?json|text\/.+|application\/x-www-form-urlencoded)$/;

/** Whether bytes that arrive in chunks are UTF-8, a character split between two chunks included. */
export function utf8Check() {

    const decoder = new TextDecoder('utf-8', { fatal: true });
    let valid = true;
    return {
        push(chunk: Buffer): void {

            try {
                if (valid) {
                    decoder.decode(chunk, { stream: true });
                }
            }
            catch {
                valid = false;
            }
        },
        /** After the last chunk: a character cut short at the end is not UTF-8 either. */
        end(): boolean {

            if (!valid) {
                return false;
            }

            try {
                decoder.decode();
                return true;
            }
            catch {
                return false;
            }
        }
    };
}

/** What was learnt of a body before hapi read it: a refusal (a length over the limit, a coding it cannot undo), or the check of its bytes. */
type BodyCheck = { refusal: Boom.Boom } | { utf8: ReturnType<typeof utf8Check> };

const checks = new WeakMap<Request, BodyCheck>();

/** The content codings hapi decodes (its own: the service adds none with server.decoder()). */
const decodedCodings = ['gzip', 'deflate'];

function unsupportedEncoding(encoding: string): Boom.Boom {

    const error = apiError(415, 'unsupported_media_type', `Content-Encoding ${encoding} is not supported: send the body as it is, or encoded with ${decodedCodings.join(' or ')}.`);
    // RFC 9110 §12.5.3: a 415 for a content coding names the codings the server takes.
    error.output.headers['Accept-Encoding'] = decodedCodings.join(', ');
    return error;
}

// As Node reads the header (RFC 9110 §10.1.1: the expectation is case-insensitive).
const expectsContinue = /(?:^|\W)100-continue(?:$|\W)/i;

/** A 413 for a body the client waits to be asked for and that is declared over the route's limit, as hapi words it once the body comes. */
function declaredTooLarge(request: Request, maxBytes: number | undefined): Boom.Boom | undefined {

    const length = Number(request.headers['content-length']);
    if (maxBytes === undefined || !(length > maxBytes) || !expectsContinue.test(request.headers.expect as string | undefined ?? '')) {
        return undefined;
    }

    return apiError(413, 'too_large', `Payload content length greater than maximum allowed: ${maxBytes}`);
}

/** Refuses the body unread, in onPostAuth: hapi then neither writes 100 Continue nor parses it (it drains what comes). */
function refuseUnread(request: Request, refusal: Boom.Boom): void {

    checks.set(request, { refusal });
    (request as { payload: unknown }).payload = null;
}

/** Before hapi reads a body it will parse, checks its declared length and its coding, and starts checking its bytes. */
function watchRequestBody(request: Request): void {

    const settings = request.route.settings.payload;
    if (request.method === 'get' || request.method === 'head' || settings?.parse !== true) {
        return;
    }

    const tooLarge = declaredTooLarge(request, settings.maxBytes);
    if (tooLarge) {
        refuseUnread(request, tooLarge);
        return;
    }

    const header = request.headers['content-encoding'] as string | undefined;
    if (header !== undefined) {
        // Codings are case-insensitive (RFC 9110 §8.4.1); hapi looks its decoders up as sent.
        const encoding = header.trim().toLowerCase();
        if (encoding !== 'identity' && !decodedCodings.includes(encoding)) {
            refuseUnread(request, unsupportedEncoding(header));
            return;
        }

        request.headers['content-encoding'] = encoding;
    }

    const utf8 = utf8Check();
    checks.set(request, { utf8 });
    // The bytes as the parser reads them, after decompression.
    request.events.on('peek', (chunk) => utf8.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
}

/** onPostAuth, once the body is read: refuses one refused unread (too large, a coding hapi could not undo), or whose text is not UTF-8. */
export function refuseUnreadableBody(request: Request): void {

    const check = checks.get(request);
    if (check && 'refusal' in check) {
        throw check.refusal;
    }

    if (check && textMediaType.test(request.mime ?? '') && !check.utf8.end()) {
        throw apiError(400, 'invalid_request', 'The body is not UTF-8, the only character encoding the service reads (RFC 8259 for JSON): send it in UTF-8, whatever charset its Content-Type names.');
    }
}

const watchBody: Lifecycle.Method = (request, h) => {

    watchRequestBody(request);
    return h.continue;
};

/**
 * Gives the routes that take a body (any method but GET) the step that checks it before hapi reads it, as
 * an onPreAuth step of those routes only (lib/route-steps.ts): every GET, most of the API's requests, would
 * otherwise pay for it. refuseUnreadableBody() then refuses what it found, after authentication.
 */
export function withBodyChecks(routes: ServerRoute[]): ServerRoute[] {

    return routes.map((route) => ([route.method].flat().some((method) => method.toLowerCase() !== 'get') ? withRouteStep(route, 'onPreAuth', watchBody) : route));
}

/** Refuses to start when a route that parses its body lacks the check (registered other than through withBodyChecks()). */
export function assertBodiesChecked(server: Server): void {

    const unchecked = routesWithoutStep(server, 'onPreAuth', watchBody, (route) => route.method !== 'get' && route.settings.payload?.parse === true);
    if (unchecked.length > 0) {
        throw new Error(`${routeNames(unchecked)} parse${unchecked.length === 1 ? 's its' : ' their'} body without the body checks: register ${unchecked.length === 1 ? 'it' : 'them'} through withBodyChecks() (lib/request-bodies.ts)`);
    }
}
