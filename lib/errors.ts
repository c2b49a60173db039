import Boom from '@hapi/boom';

/** The stable machine codes of DESIGN.md §4, and a few more for the hosted site. */
export type ErrorCode =
    | 'invalid_key' | 'api_not_enabled' | 'plan_not_eligible' | 'family_suspended'
    | 'resource_scope' | 'operation_scope' | 'living_person_protected' | 'not_found' | 'invalid_request'
    | 'too_large' | 'unsupported_media_type' | 'rate_limited'
    | 'quota_exceeded' | 'invalid_signature' | 'url_expired' | 'range_not_satisfiable' | 'precondition_failed' | 'precondition_required' | 'idempotency_key_reused'
    | 'invalid_token' | 'account_disabled' | 'messaging_suspended' | 'token_scope' | 'blocked'
    | 'checksum_mismatch' | 'upload_expired' | 'upload_incomplete' | 'attachment_policy'
    | 'unauthorized' | 'forbidden' | 'conflict' | 'method_not_allowed' | 'not_acceptable' | 'service_unavailable' | 'internal_error';

/** A Boom error carrying a stable `code` in its payload. */
export function apiError(statusCode: number, code: ErrorCode, message: string): Boom.Boom {

    const error = new Boom.Boom(message, { statusCode });
    error.output.payload.code = code;
    return error;
}

/**
 * A rule of the domain was broken (a Lite family enabling the API, a legacy key
 * gaining write scopes…). Services throw it; HTTP answers it as `statusCode` + `code`,
 * the CLI prints the message and exits non-zero.
 */
export class ServiceError extends Error {
    constructor(readonly code: ErrorCode, message: string, readonly statusCode = 400) {

        super(message);
        this.name = 'ServiceError';
    }
}

/**
 * Makes the answer `error` gives (hapi's 500 for an error it did not make) `statusCode` with `code` and
 * `message`, in place: later onPreResponse steps (the hosted site's pages) see the new answer.
 */
export function answerInstead(error: Boom.Boom, statusCode: number, code: ErrorCode, message: string): void {

    error.output.statusCode = statusCode;
    error.reformat();
    error.output.payload.message = message;
    error.output.payload.code = code;
}

/**
 * A ServiceError no handler turned into an answer of its own reaches hapi, which makes it a 500: it answers
 * as it says instead (its status, code and words), e.g. the 503 of an access change whose announcement
 * Redis missed, thrown from a hosted-site form that expects no refusal.
 */
export function answerAsServiceSays(error: Boom.Boom & ServiceError): void {

    answerInstead(error, error.statusCode, error.code, error.message);
}

const codeByStatus: Record<number, ErrorCode> = {
    400: 'invalid_request',
    401: 'unauthorized',
    403: 'forbidden',
    404: 'not_found',
    405: 'method_not_allowed',
    409: 'conflict',
    412: 'precondition_failed',
    413: 'too_large',
    415: 'unsupported_media_type',
    416: 'range_not_satisfiable',
    429: 'rate_limited'
};

/** The part of the request that failed validation (`query`, `params`, `payload`…), as hapi tells a failAction. */
export const failedValidationPart = (error?: Error): string | undefined => {

    return ((error as Boom.Boom | undefined)?.output?.payload.validation as { source?: string } | undefined)?.source;
};

/** Gives every error response a stable code; hides the details of unexpected ones. */
export function withErrorCode(error: Boom.Boom): Boom.Boom {

    const payload = error.output.payload;
    if (!payload.code) {
        payload.code = codeByStatus[error.output.statusCode] ?? (error.output.statusCode >= 500 ? 'internal_error' : 'invalid_request');
    }

    return error;
}
