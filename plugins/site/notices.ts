/**
 * Confirmations shown after a form redirects (`?notice=key-revoked`): the URL names a
 * notice, never carries its text, so a link cannot put words on the page.
 */
const notices = {
    'signed-out': 'You are signed out.',
    'two-factor-off': 'Two-factor sign-in is off.',
    'api-enabled': 'API access is on.',
    'api-disabled': 'API access is off. Existing keys are kept and work again when you turn it back on.',
    'key-scopes-changed': 'The key\'s scopes are changed. They apply from its next request.',
    'key-revoked': 'The key is revoked. Requests with it are refused from now on.',
    'webhook-disabled': 'The endpoint is disabled: no more deliveries until you enable it.',
    'webhook-enabled': 'The endpoint is enabled.',
    'webhook-deleted': 'The endpoint is deleted.',
    'webhook-redelivered': 'The event is queued for delivery again.',
    'family-suspended': 'The family\'s API is suspended. Every key is refused with family_suspended.',
    'family-already-suspended': 'The family\'s API was already suspended: that suspension stands, with its time and reason below. To give another reason, unsuspend it, then suspend it again.',
    'family-unsuspended': 'The family\'s API is no longer suspended.',
    'family-not-suspended': 'The family\'s API was not suspended (lifted already?): nothing changed.',
    'messaging-suspended': 'The family\'s messaging is suspended: its members cannot message on the site, and its devices are refused with messaging_suspended.',
    'messaging-already-suspended': 'The family\'s messaging was already suspended: that suspension stands, with its time and reason below. To give another reason, restore it, then suspend it again.',
    'messaging-restored': 'The family\'s messaging is restored.',
    'messaging-not-suspended': 'The family\'s messaging was not suspended (restored already?): nothing changed.',
    'user-disabled': 'The user is disabled: signed out everywhere, unable to sign in or message, their devices refused with account_disabled.',
    'user-already-disabled': 'The user was disabled already: nothing changed.',
    'user-enabled': 'The user is enabled again: they can sign in, and their devices are accepted again.',
    'user-not-disabled': 'The user was not disabled (enabled already?): nothing changed.',
    'device-disconnected': 'The device is disconnected. Its access is refused from its next request.',
    'device-already-disconnected': 'The device was disconnected already: nothing changed.',
    'message-edited': 'Your message is changed.',
    'message-deleted': 'Your message is deleted: everyone now sees that a message was deleted here.',
    'conflict-sent': 'Sent: the message your device held back is in its conversation now.',
    'conflict-still-refused': 'Still held back: the reason shown is what stops it now.',
    'conflict-discarded': 'Discarded: that message will not be sent.',
    'conflict-changed': 'That held-back message changed since this page was drawn (a device resolved it, or its reason changed): here it is as it is now.',
    'person-blocked': 'Blocked. They cannot start a conversation with you or write in yours, and you no longer see their messages in groups.',
    'person-already-blocked': 'You had blocked them already: nothing changed.',
    'person-unblocked': 'Unblocked. You see their messages again, and you can write to each other.',
    'person-not-blocked': 'They were not blocked (unblocked already?): nothing changed.',
    'member-added': 'The member is added: they see the whole conversation.',
    'member-removed': 'The member is removed from the group.',
    'group-left': 'You left the group. Its members can add you again.'
} as const;

export type Notice = keyof typeof notices;

/** Notices of something that did not happen (it had been done already), shown as information, not as a success. */
const nothingDone: ReadonlySet<Notice> = new Set([
    'family-already-suspended', 'family-not-suspended', 'messaging-already-suspended', 'messaging-not-suspended', 'user-already-disabled', 'user-not-disabled',
    'device-already-disconnected', 'person-already-blocked', 'person-not-blocked'
]);

export function noticeOf(name: unknown): { text: string; kind: 'success' | 'info' } | undefined {

    if (typeof name !== 'string' || !Object.hasOwn(notices, name)) {
        return undefined;
    }

    return { text: notices[name as Notice], kind: nothingDone.has(name as Notice) ? 'info' : 'success' };
}

/** A redirect target with a notice for the page it lands on. */
export function withNotice(path: string, notice: Notice): string {

    return `${path}${path.includes('?') ? '&' : '?'}notice=${notice}`;
}
