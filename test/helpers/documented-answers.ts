import Ajv2020 from 'ajv/dist/2020';

import type { OpenApiDocument } from '../../plugins/docs/openapi-types';

/** A JSON pointer into the document, as a URI fragment. */
const pointer = (...parts: string[]) => `#/${parts.map((part) => encodeURIComponent(part.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/')}`;

/**
 * Checks answers against what the API reference promises: the status is one the operation
 * documents and a JSON body matches that status's schema. Returns what is wrong, or undefined.
 */
export type AnswerCheck = (path: string, method: string, status: number, body: unknown) => string | undefined;

/** A copy of `schema` in which every object schema that lists its properties takes no other (`additionalProperties: false`). */
function closed(schema: unknown): unknown {

    if (Array.isArray(schema)) {
        return schema.map(closed);
    }

    if (typeof schema !== 'object' || schema === null) {
        return schema;
    }

    const copy: Record<string, unknown> = Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, closed(value)]));
    if (copy.type === 'object' && copy.properties && copy.additionalProperties === undefined) {
        copy.additionalProperties = false;
    }

    return copy;
}

/**
 * `closed`: every object the document describes with its properties takes no other, so a field an
 * answer carries that the document does not declare fails (generated typed clients would drop it).
 */
export function documentedAnswers(document: OpenApiDocument, { closed: noOtherProperties = false } = {}): AnswerCheck {

    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    ajv.addSchema(noOtherProperties ? closed(document) as object : document, 'openapi.json');
    return (path, method, status, body) => {

        const response = document.paths[path]?.[method]?.responses[String(status)];
        if (!response) {
            return `${method.toUpperCase()} ${path}: status ${status} is not documented`;
        }

        // An error of a version answering problem details is documented as such, any other JSON answer as application/json.
        const mediaType = response.content?.['application/problem+json'] ? 'application/problem+json' : 'application/json';
        const schemaRef = `openapi.json${pointer('paths', path, method, 'responses', String(status), 'content', mediaType, 'schema')}`;
        return ajv.validate({ $ref: schemaRef }, body) ? undefined : `${method.toUpperCase()} ${path} ${status}: ${ajv.errorsText()}\n${JSON.stringify(body)}`;
    };
}
