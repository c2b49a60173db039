import type { Request } from '@hapi/hapi';

import type { ApiKeyCredentials } from './credentials';
import type { ScopesPolicy } from './policies/types';

/** The resources a key reaches: its own scopes within what its family exposes. */
export function effectiveResources(credentials: ApiKeyCredentials): string[] {

    return credentials.key.resourceScopes.filter((resource) => credentials.family.apiResources.includes(resource));
}

/** Whether a key reaches a resource: in its own scopes and exposed by its family. */
export function reachesResource(credentials: ApiKeyCredentials, resource: string): boolean {

    return credentials.key.resourceScopes.includes(resource) && credentials.family.apiResources.includes(resource);
}

/** Whether a key may perform an operation; a key from before write scopes keeps the legacy set forever. */
export function grantsOperation(credentials: ApiKeyCredentials, operation: string, scopes: ScopesPolicy): boolean {

    return credentials.key.operationScopes.includes(operation) &&
        (!credentials.key.predatesWriteScopes || scopes.legacy_key_operations.includes(operation));
}

/** The operations a query parameter calls for when it is present (scopes.yaml query_operations). */
export function parameterOperations(parameter: string, scopes: ScopesPolicy): string[] {

    return scopes.query_operations
        .filter((rule) => rule.parameter === parameter || (rule.parameter_prefix !== undefined && parameter.startsWith(rule.parameter_prefix)))
        .map((rule) => rule.operation);
}

/** The operations a request needs: the route's own, plus those its query parameters call for. */
export function requiredOperations(request: Request, routeOperation: string, scopes: ScopesPolicy): string[] {

    const parameters = Object.keys(request.query);
    if (parameters.length === 0) {
        return [routeOperation];
    }

    const needed = new Set([routeOperation]);
    for (const parameter of parameters) {
        for (const operation of parameterOperations(parameter, scopes)) {
            needed.add(operation);
        }
    }

    return [...needed];
}

/** The authenticated key of a family API request. */
export function apiCredentials(request: Request): ApiKeyCredentials {

    return request.auth.credentials as unknown as ApiKeyCredentials;
}
