import { apiError } from '../../lib/errors';
import { withoutConfig } from './context';

/** The route's token scope (`plugins.gateway.scope`) must be among those the device was granted. */
export const tokenScope = withoutConfig(({ principal, route }) => {

    const scope = route.scope!;
    if (!principal.device?.scopes.includes(scope)) {
        throw apiError(403, 'token_scope', `This ${principal.credentialName} lacks the ${scope} scope: connect the device again, approving it.`);
    }
}, ['scope']);
