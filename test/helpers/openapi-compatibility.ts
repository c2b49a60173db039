import type { JsonSchema, OpenApiDocument, ParameterObject, RequestBodyObject, ResponseObject } from '../../plugins/docs/openapi-types';

/*
 * What a published version of the API may not change: the guard on v1's contract (test/plugins/docs/v1-contract.ts)
 * compares the document the server generates with the snapshot committed. A schema is read the same way in a
 * request and in a response: a client of the snapshot sends and reads what it describes, so a field, value or
 * type it names must stay, and nothing it may leave out may become required.
 */

type Schema = JsonSchema & { $ref?: string };

const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** The types a schema takes; undefined when any (no `type`). An integer is a number. */
function typesOf(schema: Schema): Set<string> | undefined {

    return schema.type === undefined ? undefined : new Set([schema.type].flat() as string[]);
}

const takes = (types: Set<string>, type: string) => types.has(type) || (type === 'integer' && types.has('number'));

/** The schema a `$ref` of `document` names, followed until one is not a reference. */
function resolved(document: OpenApiDocument, schema: Schema): Schema {

    let current = schema;
    while (current.$ref) {
        const name = current.$ref.replace('#/components/schemas/', '');
        current = document.components.schemas[name] as Schema;
    }

    return current;
}

/** The bounds of a schema that only a narrowing can lower (`max…`) or raise (`min…`). */
const upperBounds = ['maxLength', 'maximum', 'maxItems'] as const;
const lowerBounds = ['minLength', 'minimum', 'minItems'] as const;

class Comparison {

    readonly changes: string[] = [];
    private readonly compared = new Set<string>();

    constructor(private readonly before: OpenApiDocument, private readonly after: OpenApiDocument) {}

    document(): string[] {

        for (const [path, operations] of Object.entries(this.before.paths)) {
            const now = this.after.paths[path];
            if (!now) {
                this.changes.push(`${path}: path removed`);
                continue;
            }

            for (const method of methods.filter((candidate) => operations[candidate])) {
                if (!now[method]) {
                    this.changes.push(`${method.toUpperCase()} ${path}: method removed`);
                    continue;
                }

                const where = `${method.toUpperCase()} ${path}`;
                this.parameters(where, operations[method].parameters ?? [], now[method].parameters ?? []);
                this.requestBody(where, operations[method].requestBody, now[method].requestBody);
                this.responses(where, operations[method].responses, now[method].responses);
            }
        }

        return this.changes;
    }

    private parameters(where: string, before: ParameterObject[], after: ParameterObject[]): void {

        for (const parameter of before) {
            const named = `${where}: ${parameter.in} parameter "${parameter.name}"`;
            const now = after.find((candidate) => candidate.name === parameter.name && candidate.in === parameter.in);
            if (!now) {
                this.changes.push(`${named} removed`);
                continue;
            }

            if (!parameter.required && now.required) {
                this.changes.push(`${named} made required`);
            }

            this.schema(named, parameter.schema as Schema, now.schema as Schema);
        }
    }

    private requestBody(where: string, before: RequestBodyObject | undefined, after: RequestBodyObject | undefined): void {

        if (!before) {
            return;
        }

        if (!after) {
            this.changes.push(`${where}: request body removed`);
            return;
        }

        if (!before.required && after.required) {
            this.changes.push(`${where}: request body made required`);
        }

        this.content(`${where}: request body`, before.content, after.content);
    }

    private responses(where: string, before: Record<string, ResponseObject>, after: Record<string, ResponseObject>): void {

        for (const [status, response] of Object.entries(before)) {
            if (!after[status]) {
                this.changes.push(`${where}: response ${status} removed`);
                continue;
            }

            this.content(`${where}: response ${status}`, response.content ?? {}, after[status].content ?? {});
        }
    }

    private content(where: string, before: Record<string, { schema?: JsonSchema }>, after: Record<string, { schema?: JsonSchema }>): void {

        for (const [type, media] of Object.entries(before)) {
            if (!after[type]) {
                this.changes.push(`${where}: media type ${type} removed`);
                continue;
            }

            if (media.schema && after[type].schema) {
                this.schema(`${where} ${type}`, media.schema as Schema, after[type].schema as Schema);
            }
        }
    }

    private schema(where: string, beforeSchema: Schema, afterSchema: Schema): void {

        // A schema reached again by the same references (a record's schema from each of its operations) is compared once per place.
        const key = `${where}|${beforeSchema.$ref ?? ''}|${afterSchema.$ref ?? ''}`;
        if (this.compared.has(key)) {
            return;
        }

        this.compared.add(key);
        const before = resolved(this.before, beforeSchema);
        const after = resolved(this.after, afterSchema);
        this.types(where, before, after);
        this.values(where, before, after);
        this.bounds(where, before, after);
        this.properties(where, before, after);
        if (before.items && after.items) {
            this.schema(`${where}[]`, before.items as Schema, after.items as Schema);
        }

        for (const combinator of ['allOf', 'anyOf', 'oneOf'] as const) {
            const parts = (before[combinator] ?? []) as Schema[];
            const now = (after[combinator] ?? []) as Schema[];
            parts.forEach((part, index) => {

                if (now[index]) {
                    this.schema(where, part, now[index]);
                }
                else if (combinator !== 'allOf') {
                    this.changes.push(`${where}: ${combinator} alternative ${index} removed`);
                }
            });
        }
    }

    private types(where: string, before: Schema, after: Schema): void {

        const was = typesOf(before);
        const is = typesOf(after);
        const lost = is && (was ? [...was].filter((type) => !takes(is, type)) : ['any']);
        if (lost && lost.length > 0) {
            this.changes.push(`${where}: type narrowed from ${was ? [...was].join(' or ') : 'any'} to ${[...is].join(' or ')}`);
        }
    }

    private values(where: string, before: Schema, after: Schema): void {

        if (!after.enum) {
            return;
        }

        if (!before.enum) {
            this.changes.push(`${where}: limited to the values ${JSON.stringify(after.enum)}`);
            return;
        }

        for (const value of (before.enum as unknown[]).filter((candidate) => !(after.enum as unknown[]).includes(candidate))) {
            this.changes.push(`${where}: enum value ${JSON.stringify(value)} removed`);
        }
    }

    private bounds(where: string, before: Schema, after: Schema): void {

        for (const bound of upperBounds) {
            const [was, is] = [before[bound] as number | undefined, after[bound] as number | undefined];
            if (is !== undefined && (was === undefined || is < was)) {
                this.changes.push(`${where}: ${bound} narrowed from ${was ?? 'none'} to ${is}`);
            }
        }

        for (const bound of lowerBounds) {
            const [was, is] = [before[bound] as number | undefined, after[bound] as number | undefined];
            if (is !== undefined && (was === undefined || is > was)) {
                this.changes.push(`${where}: ${bound} narrowed from ${was ?? 'none'} to ${is}`);
            }
        }
    }

    private properties(where: string, before: Schema, after: Schema): void {

        const properties = (before.properties ?? {}) as Record<string, Schema>;
        const now = (after.properties ?? {}) as Record<string, Schema>;
        for (const [name, property] of Object.entries(properties)) {
            if (now[name]) {
                this.schema(`${where}.${name}`, property, now[name]);
            }
            else if (after.properties) {
                this.changes.push(`${where}: field "${name}" removed`);
            }
        }

        const required = new Set((before.required ?? []) as string[]);
        for (const name of ((after.required ?? []) as string[]).filter((candidate) => !required.has(candidate))) {
            this.changes.push(`${where}: field "${name}" made required`);
        }
    }
}

/** The changes from `before` to `after` that would break a client written for `before`, each naming what and where; none for additions. */
export function incompatibleChanges(before: OpenApiDocument, after: OpenApiDocument): string[] {

    return new Comparison(before, after).document();
}
