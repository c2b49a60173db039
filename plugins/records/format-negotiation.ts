import Boom from '@hapi/boom';
import type { Request, ResponseToolkit, RouteExtObject } from '@hapi/hapi';

import { preferredMediaType } from '../../lib/accept';
import { apiError } from '../../lib/errors';

/** The media type of each format a list answers in, by its `format=` name, JSON (the default) first. */
export type FormatMediaTypes = Readonly<Record<string, string>>;

/**
 * The route extensions of a list that answers in several formats. Without `format=` in the query, the
 * Accept header picks the format before the query is validated (an export's `limit` and `cursor` rules
 * then apply): no Accept, or a range of every type, is JSON; one that names none of the formats is
 * `406 not_acceptable` listing them. `format=` wins: Accept is not read then. Every answer says it
 * varies by Accept, so that a cache never gives a CSV to a client that asked for JSON.
 */
export function formatNegotiation(mediaTypes: FormatMediaTypes): { onPostAuth: RouteExtObject; onPreResponse: RouteExtObject } {

    const formats = Object.keys(mediaTypes);
    const offered = Object.values(mediaTypes);
    const listed = formats.map((format) => `${mediaTypes[format]} (format=${format})`).join(', ');

    return {
        onPostAuth: {
            method(request: Request, h: ResponseToolkit) {

                const query = request.query as Record<string, unknown>;
                if (query.format !== undefined) {
                    return h.continue;
                }

                const preferred = preferredMediaType(request.headers.accept as string | undefined, offered);
                if (!preferred) {
                    const error = apiError(406, 'not_acceptable', `The Accept header names no format this list answers in: ${listed}. Accept one of these media types, or name the format with format= in the query.`);
                    error.output.headers.Vary = 'Accept';
                    throw error;
                }

                const format = formats[offered.indexOf(preferred)];
                if (format !== formats[0]) {
                    query.format = format;
                }

                return h.continue;
            }
        },
        onPreResponse: {
            method(request: Request, h: ResponseToolkit) {

                if (!Boom.isBoom(request.response)) {
                    request.response.vary('accept');
                }

                return h.continue;
            }
        }
    };
}
