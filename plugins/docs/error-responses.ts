import type { ErrorCode } from '../../lib/errors';
import { errorCodes, policyErrors } from './error-codes';
import { headerRefs, withRateLimitHeaders, type HeaderName } from './headers';
import type { ResponseObject } from './openapi-types';
import type { RouteFacts } from './route-facts';
import { authSchemeOf } from './security';

/** Headers an error status always carries. */
const statusHeaders: Readonly<Record<number, readonly HeaderName[]>> = {
    401: ['WWW-Authenticate'],
    416: ['Content-Range'],
    429: ['Retry-After']
};

/** The codes a route can answer: its gateway chain's, what its validation, path and body add, and what it declares. */
function routeErrorCodes(facts: RouteFacts): ErrorCode[] {

    const codes: ErrorCode[] = [];
    if (facts.securedBy) {
        codes.push(...authSchemeOf(facts.securedBy).errors);
        for (const policy of facts.securedBy.policies.filter((candidate) => candidate.enabled)) {
            const answers = policyErrors[policy.name];
            if (!answers) {
                throw new Error(`API reference: the errors of gateway policy "${policy.name}" are not described in plugins/docs/error-codes.ts`);
            }

            codes.push(...answers);
        }
    }

    if (facts.validated) {
        codes.push('invalid_request');
    }

    if (facts.params.length > 0) {
        codes.push('not_found');
    }

    if (facts.body) {
        codes.push('too_large', 'unsupported_media_type');
    }

    return [...new Set([...codes, ...(facts.route.settings.plugins?.docs?.errors ?? [])])];
}

function errorResponse(facts: RouteFacts, status: number, codes: ErrorCode[]): ResponseObject {

    const response: ResponseObject = {
        description: codes.map((code) => `\`${code}\`: ${errorCodes[code].when}`).join(' '),
        ...(statusHeaders[status] ? { headers: headerRefs(statusHeaders[status]) } : {}),
        content: {
            'application/json': {
                schema: { allOf: [{ $ref: '#/components/schemas/Error' }, { properties: { code: { enum: codes } } }] }
            }
        }
    };

    // Authentication fails before the rate limit is counted.
    return status === 401 ? response : withRateLimitHeaders(facts, response);
}

/** The error responses of a route, by status, each naming the codes it can carry. */
export function errorResponses(facts: RouteFacts): Record<string, ResponseObject> {

    const byStatus = new Map<number, ErrorCode[]>();
    for (const code of routeErrorCodes(facts)) {
        const status = errorCodes[code].status;
        byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
    }

    return Object.fromEntries([...byStatus].map(([status, codes]) => [String(status), errorResponse(facts, status, codes)]));
}

/** components.schemas.Error: the Boom payload every error carries. */
export const errorSchema = {
    type: 'object',
    description: 'Every error, whatever format was asked for. `code` is stable; `message` is for people and may change.',
    required: ['statusCode', 'error', 'message', 'code'],
    properties: {
        statusCode: { type: 'integer', description: 'The HTTP status.' },
        error: { type: 'string', description: 'The status text, for example Forbidden.' },
        message: { type: 'string', description: 'What went wrong, naming the problem.' },
        code: {
            type: 'string',
            enum: Object.keys(errorCodes),
            description: 'The stable machine code.',
            'x-enumDescriptions': Object.fromEntries(Object.entries(errorCodes).map(([code, { status, when }]) => [code, `${status}: ${when}`]))
        }
    }
};
