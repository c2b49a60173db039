import Boom from '@hapi/boom';
import type { Request, ResponseObject } from '@hapi/hapi';

import type { ApiVersion, GatewayConfig } from '../gateway/policies/gateway-file';
import { groupOfPath } from '../gateway/route-groups';

/** The media type of RFC 9457 problem details. */
export const problemMediaType = 'application/problem+json';

/** The members of a problem details answer: RFC 9457's, and v1's `code` kept as an extension member. */
export interface ProblemDetails {
    type: string;
    title: string;
    status: number;
    detail: string;
    instance: string;
    code: string;
}

/** `error` (its code given already) answered as RFC 9457 problem details, in place; `typeOf` says where its code is described. */
export function becomeProblemDetails(error: Boom.Boom, requestId: string, typeOf: (code: string) => string): void {

    const { statusCode, error: title, message, code } = error.output.payload;
    const problem: ProblemDetails = { type: typeOf(code as string), title, status: statusCode, detail: message, instance: requestId, code: code as string };
    error.output.payload = problem as unknown as Boom.Payload;
    error.output.headers['content-type'] = `${problemMediaType}; charset=utf-8`;
}

/** The headers of a deprecated version (RFC 9745's `Deprecation` and its `Link`, RFC 8594's `Sunset`); none for a current one. */
export function deprecationHeaders(version: ApiVersion): Record<string, string> {

    if (version.status !== 'deprecated') {
        return {};
    }

    return {
        Deprecation: `@${Math.floor(version.deprecation!.getTime() / 1000)}`,
        ...(version.sunset ? { Sunset: version.sunset.toUTCString() } : {}),
        Link: `<${version.migration_notes!}>; rel="deprecation"; type="text/html"`
    };
}

export type VersionAnswers = (request: Request, response: Boom.Boom | ResponseObject) => void;

/**
 * Answers each request as the version of the API its path lies under declares (gateway.yaml, read per
 * request: a version is deprecated by a reload): an error in its error format, and a deprecated version's
 * headers on every answer. Called once every error has its code (lib/deployment.ts errorCodes()).
 */
export function versionAnswers(gateway: () => GatewayConfig, problemTypeOf: (version: ApiVersion, code: string) => string): VersionAnswers {

    return (request, response) => {

        const version = groupOfPath(request.path, gateway())?.version;
        if (!version) {
            return;
        }

        const headers = deprecationHeaders(version);
        if (Boom.isBoom(response)) {
            if (version.error_format === 'problem') {
                becomeProblemDetails(response, request.requestId, (code) => problemTypeOf(version, code));
            }

            Object.assign(response.output.headers, headers);
        }
        else {
            Object.entries(headers).forEach(([name, value]) => response.header(name, value));
        }
    };
}
