import type { Request } from '@hapi/hapi';

import type { ScopesPolicy } from './policies/scopes';
import type { Principal } from './principal';

/** The resources a principal reaches: its own scopes within what its family exposes. */
export function effectiveResources(principal: Principal): string[] {

    return principal.scopes.resources.filter((resource) => principal.family.apiResources.includes(resource));
}

/** Whether a principal reaches a resource: in its own scopes and exposed by its family. */
export function reachesResource(principal: Principal, resource: string): boolean {

    return principal.scopes.resources.includes(resource) && principal.family.apiResources.includes(resource);
}

/** Whether a principal may perform an operation; a key from before write scopes keeps the legacy set forever. */
export function grantsOperation(principal: Principal, operation: string, scopes: ScopesPolicy): boolean {

    return principal.scopes.operations.includes(operation) &&
        (!principal.scopes.legacyOperationsOnly || scopes.legacy_key_operations.includes(operation));
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

