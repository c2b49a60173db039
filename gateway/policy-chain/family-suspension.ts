import { apiError } from '../../lib/errors';
import { withoutConfig } from './context';

/** A super-admin can suspend a family's API; every credential of the family stops at once. */
export const familySuspension = withoutConfig(({ principal }) => {

    if (principal.family.suspended) {
        throw apiError(403, 'family_suspended', 'This family\'s API access is suspended. A family manager can see why under Manage > APIs & Connectors.');
    }
});
