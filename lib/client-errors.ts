import Http from 'http';
import type { Duplex } from 'stream';

import type Boom from '@hapi/boom';
import type { Server } from '@hapi/hapi';

import { apiError } from './errors';
import { newRequestId } from './request-id';

/*
 * Node emits `clientError` for bytes its parser cannot read as a request (a header section over its
 * limit, a malformed request line), for one whose request does not arrive in time, and for a connection
 * that breaks before a request is answered.
 * hapi's listener answers one that comes with no request under way with a bare "400 Bad Request" and
 * no body; the service answers it as every other error, in JSON with a stable code. One that comes
 * while a request is answered (its chunked body breaks) stays hapi's to answer, through that request.
 */

/** What Node's parser adds to the errors it emits: `HPE_HEADER_OVERFLOW`, and the parser's words for what is wrong. */
interface ParserError extends Error {
    code?: string;
    reason?: string;
}

function clientErrorAnswer(error: ParserError, listener: Http.Server): Boom.Boom {

    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
        // What Node itself answers when its headersTimeout or requestTimeout passes (RFC 9110 §15.5.9).
        return apiError(408, 'invalid_request', `The request did not arrive in time (its headers within ${listener.headersTimeout / 1000} s, the whole of it within ${listener.requestTimeout / 1000} s): send it again.`);
    }

    if (error.code === 'HPE_HEADER_OVERFLOW') {
        // Node counts the request line in its limit: a long URL overflows it as headers do (RFC 6585 §5).
        return apiError(431, 'too_large', `The request's URL and headers take more than the ${Http.maxHeaderSize} bytes the service reads: send a shorter URL, or fewer or shorter headers.`);
    }

    return apiError(400, 'invalid_request', `The request is not HTTP/1.1 the service can read: ${error.reason ?? error.message}.`);
}

/**
 * An error answered straight on the connection, which then closes: Node has no request and response objects for it.
 * Its X-Request-Id is a new one: no header of a request Node could not read is believed.
 */
function rawAnswer(error: Boom.Boom): string {

    const { statusCode, payload, headers } = error.output;
    const body = JSON.stringify(payload);
    const fields = { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store', Connection: 'close', 'X-Request-Id': newRequestId(), ...headers };
    return [`HTTP/1.1 ${statusCode} ${Http.STATUS_CODES[statusCode]}`, ...Object.entries(fields).map(([name, value]) => `${name}: ${value}`), '', body].join('\r\n');
}

/** Node's mark of a connection with a response under way (what its own default answer checks). */
const answering = (socket: Duplex) => Boolean((socket as { _httpMessage?: unknown })._httpMessage);

/** Replaces hapi's `clientError` listener on the server's listener with one answering in JSON, keeping hapi's for a request under way. */
export function answerClientErrors(server: Server): void {

    const listener = server.listener;
    const hapiListeners = listener.listeners('clientError') as ((error: Error, socket: Duplex) => void)[];
    listener.removeAllListeners('clientError');
    listener.on('clientError', (error: ParserError, socket: Duplex) => {

        // A connection reset or broken: nothing can be written to it any more.
        if (!socket.writable) {
            socket.destroy();
            return;
        }

        if (answering(socket)) {
            hapiListeners.forEach((hapiListener) => hapiListener.call(listener, error, socket));
            return;
        }

        socket.end(rawAnswer(clientErrorAnswer(error, listener)));
    });
}
