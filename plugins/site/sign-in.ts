import Crypto from 'crypto';

import type { Request } from '@hapi/hapi';
import Bcrypt from 'bcrypt';

import { clientOf } from '../../lib/audit-log';
import type { Models } from '../../models';
import type { User } from '../../models/user';
import type { SiteContext } from './context';
import { knownAccounts } from './device-cookie';
import { accountSubject, countFailure, mayAttempt, type SignInAttempt } from './sign-in-throttle';

/** What every failed sign-in says, whatever went wrong: it never tells whether an account exists. */
export const signInFailed = 'Incorrect email or password, or too many attempts. Try again in a few minutes.';

/** What a disabled user is told, only once their password (and code) were right: a wrong one still gets signInFailed. */
export const accountDisabled = 'This account is disabled. Ask the service\'s operator to enable it again.';

let dummyHash: Promise<string> | undefined;

/**
 * The user whose email and password these are. An unknown email costs a bcrypt
 * comparison too, so the answer's timing does not reveal which accounts exist.
 */
export async function userWithPassword(models: Models, email: string, password: string): Promise<User | undefined> {

    const user = await models.User.findOne({ where: { email: email.trim().toLowerCase() } });
    if (!user) {
        dummyHash ??= Bcrypt.hash(Crypto.randomBytes(16).toString('hex'), 12);
        await Bcrypt.compare(password, await dummyHash);
        return undefined;
    }

    return await Bcrypt.compare(password, user.password_hash) ? user : undefined;
}

/** Who makes this request's attempt to prove it is `email`'s owner. */
function signInAttempt(request: Request, email: string): SignInAttempt {

    const account = accountSubject(email);
    return { account, ip: clientOf(request).ip, knownDevice: knownAccounts(request).includes(account) };
}

/**
 * Runs `check`, an attempt by this request's client to prove it is `email`'s owner (a password or a two-factor
 * code at sign-in, or the password that turns two-factor sign-in off: a stolen session must not be a way to guess
 * it without limit), if the throttle admits it now, and counts it when it fails (`check` answers undefined).
 * Undefined too when the throttle refuses: both say the same words.
 */
export async function throttledAttempt<T>(context: SiteContext, request: Request, email: string, check: () => Promise<T | undefined>): Promise<T | undefined> {

    const attempt = signInAttempt(request, email);
    const policy = context.policies().site;
    if (!await mayAttempt(context.rateLimits, policy, attempt)) {
        return undefined;
    }

    const passed = await check();
    if (passed === undefined) {
        await countFailure(context.rateLimits, policy, attempt);
    }

    return passed;
}
