import { apiError } from '../../lib/errors';
import { effectiveResources, grantsOperation, reachesResource, requiredOperations } from '../scopes';
import { withoutConfig } from './context';

/** The route's resource must be in the principal's scope (the aggregate `all` serves whatever is). */
export const resourceScope = withoutConfig(({ principal, route, policies }) => {

    const resource = route.resource!;
    const allowed = resource === policies.scopes.aggregate_resource ? effectiveResources(principal).length > 0 : reachesResource(principal, resource);
    if (!allowed) {
        throw apiError(403, 'resource_scope', `This ${principal.credentialName} has no access to ${resource}.`);
    }
}, ['resource']);

/** Every operation the request needs must be granted to the principal. */
export const operationScope = withoutConfig(({ request, principal, route, policies }) => {

    const missing = requiredOperations(request, route.operation!, policies.scopes).filter((operation) => !grantsOperation(principal, operation, policies.scopes));
    if (missing.length > 0) {
        const legacy = principal.scopes.legacyOperationsOnly && missing.some((operation) => !policies.scopes.legacy_key_operations.includes(operation));
        throw apiError(403, 'operation_scope', `This ${principal.credentialName} lacks the ${missing.join(', ')} operation scope${missing.length > 1 ? 's' : ''}${legacy ? ' (it predates write scopes and can never gain them: create a new key)' : ''}.`);
    }
}, ['operation']);
