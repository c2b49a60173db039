import type { Request, ResponseToolkit, Server } from '@hapi/hapi';

/**
 * The cookie that marks a browser as one its accounts have signed in from (OWASP's device cookie): sealed, so
 * nobody can write one, and naming the accounts by their hashed emails (`accountSubject()`). Failed sign-ins from
 * unknown browsers cannot lock a user out of a known one.
 */
export const deviceCookie = 'fr_device';

/** The accounts one browser is known for, the latest first: enough for a shared family computer. */
const accountsPerDevice = 5;
const deviceLifetimeMs = 365 * 24 * 3_600_000;

export function declareDeviceCookie(server: Server, cookie: { password: string; secure: boolean }): void {

    server.state(deviceCookie, {
        encoding: 'iron',
        password: cookie.password,
        isSecure: cookie.secure,
        isHttpOnly: true,
        isSameSite: 'Lax',
        path: '/',
        ttl: deviceLifetimeMs,
        ignoreErrors: true,
        clearInvalid: true
    });
}

/** The accounts this browser has signed in to (hashed emails). */
export function knownAccounts(request: Request): string[] {

    const sealed = request.state[deviceCookie] as { accounts?: unknown } | undefined;
    return Array.isArray(sealed?.accounts) ? sealed.accounts.filter((account): account is string => typeof account === 'string') : [];
}

/** Remembers that this browser signed in to `account`. */
export function rememberDevice(request: Request, h: ResponseToolkit, account: string): void {

    const accounts = [account, ...knownAccounts(request).filter((known) => known !== account)].slice(0, accountsPerDevice);
    h.state(deviceCookie, { accounts });
}
