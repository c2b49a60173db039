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
    'device-already-disconnected': 'The device was disconnected already: nothing changed.'
} as const;

export type Notice = keyof typeof notices;

/** Notices of something that did not happen (it had been done already), shown as information, not as a success. */
const nothingDone: ReadonlySet<Notice> = new Set([
    'family-already-suspended', 'family-not-suspended', 'messaging-already-suspended', 'messaging-not-suspended', 'user-already-disabled', 'user-not-disabled', 'device-already-disconnected'
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
