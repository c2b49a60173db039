import type { Family } from '../../models/family';
import type { User } from '../../models/user';

/** Why a user may not use messaging now: the code the API answers (403), and words for people. */
export interface MessagingRefusal {
    code: 'account_disabled' | 'messaging_suspended';
    message: string;
}

/** What the messaging API's 403 messaging_suspended says; the site adds the reason the super-admin gave. */
export const messagingSuspendedMessage = 'Messaging is suspended for this family by the service\'s operator: it works again once they restore it.';

/**
 * Whether `user` may use messaging now, on the site or through the API: undefined when they may. A disabled user
 * may not, nor anyone of a family whose messaging a super-admin suspended (the family's API suspension is the
 * gateway's own rule, for devices only). The site's pages and the outbox's rechecks ask this; the gateway's
 * account-state policy answers the same codes from the principal.
 */
export function messagingRefusal(user: Pick<User, 'disabled_at'>, family: Pick<Family, 'messaging_suspended_at' | 'messaging_suspension_reason'>): MessagingRefusal | undefined {

    if (user.disabled_at) {
        return { code: 'account_disabled', message: 'This account is disabled: it cannot use messaging until an operator enables it again.' };
    }

    if (family.messaging_suspended_at) {
        return { code: 'messaging_suspended', message: `${messagingSuspendedMessage} Reason: ${family.messaging_suspension_reason ?? 'none given'}` };
    }

    return undefined;
}
