import { messagingSuspendedMessage } from '../../lib/accounts/messaging-access';
import { apiError } from '../../lib/errors';
import { withoutConfig } from './context';

/**
 * A credential of a user stops at once when the user is disabled, their family suspended, or its messaging
 * suspended, except at a route that declares it refuses their work itself (`accountStateInHandler`).
 */
export const accountState = withoutConfig(({ principal, route }) => {

    if (route.accountStateInHandler) {
        return;
    }

    if (principal.user?.disabled) {
        throw apiError(403, 'account_disabled', 'This account is disabled: its devices are refused until an operator enables it again.');
    }

    if (principal.family.suspended) {
        throw apiError(403, 'family_suspended', 'This family\'s access is suspended. A family manager can see why under Manage > APIs & Connectors.');
    }

    if (principal.family.messagingSuspended) {
        throw apiError(403, 'messaging_suspended', messagingSuspendedMessage);
    }
});
