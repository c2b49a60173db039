import { apiError } from '../../lib/errors';
import type { GatewayPolicy } from './context';

/** A super-admin can suspend a family's API; every key of the family stops at once. */
export const familySuspension: GatewayPolicy = ({ credentials }) => {

    if (credentials.family.suspended) {
        throw apiError(403, 'family_suspended', 'This family\'s API access is suspended. A family manager can see why under Manage > APIs & Connectors.');
    }
};
