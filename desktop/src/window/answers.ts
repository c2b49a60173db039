import type { Request, ResponseToolkit } from '@hapi/hapi';

import { ApiError, OfflineError, SignedOutError } from '../sdk/errors';

type Handler = (request: Request, h: ResponseToolkit) => Promise<unknown>;

/** A request of the page this server refuses itself. */
export class PageRequestError extends Error {

    constructor(readonly status: number, readonly code: string, message: string) {

        super(message);
    }
}

/** An engine error as a JSON answer the page shows: offline is 503, the service's own refusals keep their status. */
export function engineFailure(h: ResponseToolkit, error: unknown) {

    if (error instanceof OfflineError) {
        return h.response({ error: 'offline', message: 'The service cannot be reached: try again once you are online.' }).code(503);
    }

    if (error instanceof SignedOutError) {
        return h.response({ error: 'signed_out', message: 'This device is signed out: connect it again from the command line.' }).code(401);
    }

    if (error instanceof PageRequestError) {
        return h.response({ error: error.code, message: error.message }).code(error.status);
    }

    if (error instanceof ApiError) {
        return h.response({ error: error.code, message: error.message }).code(error.status >= 400 ? error.status : 502);
    }

    return h.response({ error: 'failed', message: (error as Error).message ?? String(error) }).code(500);
}

/** A handler whose failure is answered as the page reads it. */
export function answering(handler: Handler) {

    return async (request: Request, h: ResponseToolkit) => {

        try {
            return await handler(request, h);
        }
        catch (error) {
            return engineFailure(h, error);
        }
    };
}
