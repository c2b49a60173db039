import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';

import { messagingRefusal } from '../../../lib/accounts/messaging-access';

export const lab = Lab.script();
const { describe, it } = lab;

describe('messagingRefusal()', () => {

    const enabled = { disabled_at: null };
    const open = { messaging_suspended_at: null, messaging_suspension_reason: null };
    const suspended = { messaging_suspended_at: new Date(), messaging_suspension_reason: 'Reported spam' };

    it('lets an enabled user of a family whose messaging is not suspended message', () => {

        expect(messagingRefusal(enabled, open)).to.be.undefined();
    });

    it('refuses a disabled user with account_disabled, first', () => {

        expect(messagingRefusal({ disabled_at: new Date() }, suspended)).to.equal({
            code: 'account_disabled',
            message: 'This account is disabled: it cannot use messaging until an operator enables it again.'
        });
    });

    it('refuses a family whose messaging is suspended with messaging_suspended, giving the reason', () => {

        expect(messagingRefusal(enabled, suspended)).to.equal({
            code: 'messaging_suspended',
            message: 'Messaging is suspended for this family by the service\'s operator: it works again once they restore it. Reason: Reported spam'
        });
    });
});
