import type { Lifecycle, Request, ResponseToolkit } from '@hapi/hapi';
import Boom from '@hapi/boom';

import { ServiceError } from '../../lib/errors';

/*
 * Scripts only from this origin (the optional copy button), no inline scripts or
 * styles, no framing, forms post only here: an injected tag can neither run nor
 * send a form elsewhere.
 */
const contentSecurityPolicy = [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'"
].join('; ');

function securityHeaders(secure: boolean): Record<string, string> {

    return {
        'Content-Security-Policy': contentSecurityPolicy,
        'X-Frame-Options': 'DENY',
        'X-Content-Type-Options': 'nosniff',
        'Referrer-Policy': 'same-origin',
        ...(secure ? { 'Strict-Transport-Security': 'max-age=31536000; includeSubDomains' } : {})
    };
}

const errorPages: Record<number, { title: string; message: string }> = {
    400: { title: 'Bad request', message: 'The form could not be read. Go back, check it and try again.' },
    403: { title: 'Not allowed', message: 'Your account cannot open this page or send this form, or the form was out of date: go back, reload the page and try again.' },
    404: { title: 'Not found', message: 'There is nothing here, or nothing you can see.' },
    // A body over the route's limit, refused before it is read: the message's files together were too large.
    413: { title: 'Too large', message: 'What you sent is larger than this form takes: go back, attach fewer or smaller files, and send it again.' },
    429: { title: 'Too many requests', message: 'Wait a minute, then try again.' },
    // The database did not answer (lib/service-unavailable.ts): not a fault to report.
    503: { title: 'Briefly unavailable', message: 'The service cannot reach its database just now. Try again in a few seconds.' }
};

// Names the request id the log line names (X-Request-Id), for whoever reports it.
const fallbackPage = (request: Request) => ({
    title: 'Something went wrong',
    message: `The error is logged as request ${request.requestId}. Try again in a moment; if it happens again, quote that id when you report it.`
});

/** The site's pages: security headers on every answer, and errors as pages rather than JSON. */
export function pageResponses(secure: boolean): Lifecycle.Method {

    const headers = securityHeaders(secure);
    return (request: Request, h: ResponseToolkit) => {

        const answer = request.response;
        let response = answer;
        if (Boom.isBoom(answer)) {
            const statusCode = answer.output.statusCode;
            const page = errorPages[statusCode] ?? (statusCode < 500 ? errorPages[400] : fallbackPage(request));
            // A service's refusal is written for people: it says more than the status's page (a change saved but not announced).
            const message = answer instanceof ServiceError ? answer.message : page.message;
            const view = h.view('error', { title: page.title, message, statusCode }).code(statusCode);
            for (const [name, value] of Object.entries(answer.output.headers)) {
                view.header(name, String(value));
            }

            response = view;
        }

        const page = response as ReturnType<ResponseToolkit['response']>;
        for (const [name, value] of Object.entries(headers)) {
            page.header(name, value);
        }

        if ((page.variety as string) === 'view') {
            page.header('Cache-Control', 'no-store');      // pages show keys, secrets, usage: never cache them
        }

        return response === answer ? h.continue : response;
    };
}
