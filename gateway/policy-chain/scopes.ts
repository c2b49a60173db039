import { apiError } from '../../lib/errors';
import { effectiveResources, grantsOperation, reachesResource, requiredOperations } from '../scopes';
import type { GatewayPolicy } from './context';

/** The route's resource must be in the key's scope (the aggregate `all` serves whatever is). */
export const resourceScope: GatewayPolicy = ({ credentials, route, policies }) => {

    const allowed = route.resource === policies.scopes.aggregate_resource ? effectiveResources(credentials).length > 0 : reachesResource(credentials, route.resource);
    if (!allowed) {
        throw apiError(403, 'resource_scope', `This API key has no access to ${route.resource}.`);
    }
};

/** Every operation the request needs must be granted to the key. */
export const operationScope: GatewayPolicy = ({ request, credentials, route, policies }) => {

    const missing = requiredOperations(request, route.operation, policies.scopes).filter((operation) => !grantsOperation(credentials, operation, policies.scopes));
    if (missing.length > 0) {
        const legacy = credentials.key.predatesWriteScopes && missing.some((operation) => !policies.scopes.legacy_key_operations.includes(operation));
        throw apiError(403, 'operation_scope', `This API key lacks the ${missing.join(', ')} operation scope${missing.length > 1 ? 's' : ''}${legacy ? ' (it predates write scopes and can never gain them: create a new key)' : ''}.`);
    }
};
