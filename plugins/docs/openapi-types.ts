/*
 * The parts of an OpenAPI 3.1 document this plugin writes. Schemas stay loosely
 * typed: they are JSON Schema 2020-12, mostly made by joi-to-json.
 */

export type JsonSchema = Record<string, unknown>;

export interface Reference {
    $ref: string;
}

export interface HeaderObject {
    description: string;
    required?: boolean;
    schema: JsonSchema;
}

export interface ParameterObject {
    name: string;
    in: 'path' | 'query' | 'header';
    required: boolean;
    description?: string;
    schema: JsonSchema;
    /** Operation scopes the key needs when this parameter is present (scopes.yaml query_operations). */
    'x-required-operations'?: string[];
}

export interface MediaTypeObject {
    schema?: JsonSchema;
}

export interface ResponseObject {
    description: string;
    headers?: Record<string, HeaderObject | Reference>;
    content?: Record<string, MediaTypeObject>;
}

export interface RequestBodyObject {
    required: boolean;
    description?: string;
    content: Record<string, MediaTypeObject>;
}

export interface OperationObject {
    operationId: string;
    summary?: string;
    description?: string;
    tags: string[];
    /** `[]` for a public route; otherwise the route group's security scheme. */
    security: Record<string, string[]>[];
    parameters: ParameterObject[];
    requestBody?: RequestBodyObject;
    responses: Record<string, ResponseObject>;
    /** The resource the route declares (plugins.gateway.resource). */
    'x-resource'?: string;
    /** The operation scopes the key always needs for this route. */
    'x-required-operations'?: string[];
}

export interface SecuritySchemeObject {
    type: 'http';
    scheme: 'bearer';
    bearerFormat: string;
    description: string;
}

export interface OpenApiDocument {
    openapi: '3.1.0';
    info: { title: string; version: string; description: string };
    servers: { url: string }[];
    tags: { name: string; description?: string }[];
    paths: Record<string, Record<string, OperationObject>>;
    components: {
        schemas: Record<string, JsonSchema>;
        headers: Record<string, HeaderObject>;
        securitySchemes: Record<string, SecuritySchemeObject>;
    };
}
