import Http from 'http';

import { problemMediaType } from '../../lib/api-versions';
import type { ErrorCode } from '../../lib/errors';
import { errorCodes, policyErrors } from './error-codes';
import { countsRequests, headerRefs, rateLimitHeaderNames, type HeaderName } from './headers';
import type { JsonSchema, ResponseObject } from './openapi-types';
import { requestHeaders } from './request-headers';
import type { RouteFacts } from './route-facts';
import { inWords } from './words';

/** Headers an error status always carries. */
const statusHeaders: Readonly<Record<number, readonly HeaderName[]>> = {
    401: ['WWW-Authenticate'],
    416: ['Content-Range'],
    429: ['Retry-After'],
    503: ['Retry-After']
};

/** A code a route can answer, and whether the rate limit has counted the request by then (so the answer carries its headers). */
interface RouteError {
    code: ErrorCode;
    counted: boolean;
}

/**
 * The codes a route can answer, in the order they can arise: its auth scheme's, its gateway
 * chain's policy by policy (gateway.yaml order: a policy before the rate limit refuses a
 * request it has not counted), the database's outage, then what its validation, path, body and request headers
 * add, and what it declares.
 */
function routeErrors(facts: RouteFacts): RouteError[] {

    const errors = new Map<ErrorCode, RouteError>();
    let counted = false;
    const answer = (codes: readonly ErrorCode[]) => {

        for (const code of codes.filter((candidate) => !errors.has(candidate))) {
            errors.set(code, { code, counted });
        }
    };

    if (facts.securedBy) {
        answer(facts.authScheme!.errors);
        for (const policy of facts.securedBy.policies.filter((candidate) => candidate.enabled)) {
            const answers = policyErrors[policy.name];
            if (!answers) {
                throw new Error(`API reference: the errors of gateway policy "${policy.name}" are not described in plugins/docs/error-codes.ts`);
            }

            counted ||= countsRequests(policy);
            answer(answers);
        }

        // A route behind a key reads the database, to verify a key not yet cached and in its handler.
        answer(['service_unavailable']);
    }

    if (facts.validated) {
        answer(['invalid_request']);
    }

    // A list of several formats picks one by the Accept header when the query names none.
    if (facts.formats.length > 1) {
        answer(['not_acceptable']);
    }

    if (facts.params.length > 0) {
        answer(['not_found']);
    }

    if (facts.body) {
        answer(['too_large', 'unsupported_media_type']);
    }

    answer(facts.headers.flatMap((name) => requestHeaders[name].errors));
    answer(facts.route.settings.plugins?.docs?.errors ?? []);
    return [...errors.values()];
}

/** The codes a route can answer. */
export const routeErrorCodes = (facts: RouteFacts): ErrorCode[] => routeErrors(facts).map(({ code }) => code);

const quoted = (codes: readonly ErrorCode[]) => codes.map((code) => `\`${code}\``);

/** Says which codes carry the rate-limit headers when only some of a status's do. */
function rateLimitNote(errors: readonly RouteError[]): string {

    const counted = errors.filter((error) => error.counted).map(({ code }) => code);
    return counted.length > 0 && counted.length < errors.length
        ? ` Only ${inWords(quoted(counted), 'and')} carry the RateLimit headers: the others refuse the request before the rate limit counts it.`
        : '';
}

function errorResponse(facts: RouteFacts, status: number, errors: readonly RouteError[]): ResponseObject {

    const codes = errors.map(({ code }) => code);
    const texts = facts.route.settings.plugins?.docs?.errorTexts ?? {};
    // Fields some code of this status carries on this route (a stale edit's `current`): each present only with its code.
    const fields = codes.flatMap((code) => Object.entries(facts.route.settings.plugins?.docs?.errorFields?.[code] ?? {}));
    const headers = [...(errors.some((error) => error.counted) ? rateLimitHeaderNames : []), ...(statusHeaders[status] ?? [])];
    const [mediaType, schemaName] = facts.errorFormat === 'problem' ? [problemMediaType, 'Problem'] : ['application/json', 'Error'];
    return {
        description: codes.map((code) => `\`${code}\`: ${texts[code] ?? errorCodes[code].when}`).join(' ') + rateLimitNote(errors),
        ...(headers.length > 0 ? { headers: headerRefs(headers) } : {}),
        content: {
            [mediaType]: {
                schema: { allOf: [{ $ref: `#/components/schemas/${schemaName}` }, { properties: { code: { enum: codes }, ...Object.fromEntries(fields) } }] }
            }
        }
    };
}

/** The error responses of a route, by status, each naming the codes it can carry. */
export function errorResponses(facts: RouteFacts): Record<string, ResponseObject> {

    const byStatus = new Map<number, RouteError[]>();
    for (const error of routeErrors(facts)) {
        const status = errorCodes[error.code].status;
        byStatus.set(status, [...(byStatus.get(status) ?? []), error]);
    }

    return Object.fromEntries([...byStatus].map(([status, errors]) => [String(status), errorResponse(facts, status, errors)]));
}

/**
 * Codes no route lists: an unexpected failure (lib/errors.ts withErrorCode), and a method a path
 * does not take (lib/unrouted.ts), which no documented operation is.
 */
const anyRouteCodes: readonly ErrorCode[] = ['method_not_allowed', 'internal_error'];

/** The codes the Error and Problem schemas list: those the documented routes can answer, and those any route can. */
const listedCodes = (answered: ReadonlySet<ErrorCode>) => (Object.keys(errorCodes) as ErrorCode[]).filter((code) => answered.has(code) || anyRouteCodes.includes(code));

const codeSchema = (codes: readonly ErrorCode[]): JsonSchema => ({
    type: 'string',
    enum: codes,
    description: 'The stable machine code.',
    'x-enumDescriptions': Object.fromEntries(codes.map((code) => [code, `${errorCodes[code].status}: ${errorCodes[code].when}`]))
});

/**
 * components.schemas.Problem: every error of a version whose `error_format` is `problem`, as RFC 9457 problem
 * details (lib/api-versions.ts), `code` kept as an extension member; `typeBase` and a code are its `type`.
 */
export function problemSchema(answered: ReadonlySet<ErrorCode>, typeBase: string): JsonSchema {

    return {
        type: 'object',
        description: `Every error of this version, as RFC 9457 problem details (\`${problemMediaType}\`), whatever format was asked for. \`code\` is stable `
            + 'and so is `type`, which names it; `title` and `detail` are for people and may change. A path the API does not have is 404 `not_found`; '
            + 'a method a path does not take is 405 `method_not_allowed`, with an `Allow` header naming the methods it takes. The signed file URLs '
            + '(`/files/{token}`), shared by every version, answer errors as schema `Error`.',
        required: ['type', 'title', 'status', 'detail', 'instance', 'code'],
        properties: {
            type: { type: 'string', format: 'uri', description: `What kind of problem: \`${typeBase}<code>\`, where this reference describes the code.` },
            title: { type: 'string', description: 'The status text, for example Forbidden.' },
            status: { type: 'integer', description: 'The HTTP status.' },
            detail: { type: 'string', description: 'What went wrong, naming the problem.' },
            instance: { type: 'string', description: 'The request id (`X-Request-Id`): quote it when reporting a problem.' },
            code: codeSchema(listedCodes(answered))
        }
    };
}

/**
 * components.schemas.Error: the Boom payload every error carries, with the codes the documented
 * routes can answer (`answered`). The hosted site's codes are not the API's, so not here.
 */
export function errorSchema(answered: ReadonlySet<ErrorCode>): JsonSchema {

    return {
        type: 'object',
        description: 'Every error, whatever format was asked for. `code` is stable; `message` is for people and may change. '
            + 'A path the API does not have is 404 `not_found`; a method a path does not take is 405 `method_not_allowed`, '
            + `with an \`Allow\` header naming the methods it takes. A URL and headers together over the ${Http.maxHeaderSize / 1024} KB the server reads are `
            + '431 `too_large`, and bytes that are not HTTP/1.1 are 400 `invalid_request`, both answered before any route and closing the connection.',
        required: ['statusCode', 'error', 'message', 'code'],
        properties: {
            statusCode: { type: 'integer', description: 'The HTTP status.' },
            error: { type: 'string', description: 'The status text, for example Forbidden.' },
            message: { type: 'string', description: 'What went wrong, naming the problem.' },
            code: codeSchema(listedCodes(answered))
        }
    };
}
