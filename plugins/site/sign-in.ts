import Crypto from 'crypto';

import type { Request } from '@hapi/hapi';
import Bcrypt from 'bcrypt';

import type { SitePolicy } from './policy';
import type { RateLimitStore } from '../../gateway/rate-limit/types';
import { clientOf } from '../../lib/audit-log';
import type { Models } from '../../models';
import type { User } from '../../models/user';
import type { SiteContext } from './context';

/** What every failed sign-in says, whatever went wrong: it never tells whether an account exists. */
export const signInFailed = 'Incorrect email or password, or too many attempts. Try again in a few minutes.';

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

/**
 * Counts a sign-in attempt (password or two-factor code) against the account and the
 * client address, in the gateway's rate-limit store; false once either is over its limit.
 */
export async function admitSignInAttempt(rateLimits: RateLimitStore, policy: SitePolicy, attempt: { email: string; ip: string }): Promise<boolean> {

    const { per_account: perAccount, per_ip: perIp } = policy.sign_in_throttle;
    // Hashed: the shared store need not hold email addresses.
    const account = Crypto.createHash('sha256').update(attempt.email.trim().toLowerCase()).digest('hex').slice(0, 32);
    const decision = await rateLimits.hit([
        { policy: 'sign-in-account', subject: account, limit: perAccount.limit, windowSeconds: perAccount.window_seconds },
        { policy: 'sign-in-ip', subject: attempt.ip, limit: perIp.limit, windowSeconds: perIp.window_seconds }
    ]);
    return decision.allowed;
}

/**
 * Counts an attempt by this request's client to prove it is `email`'s owner: a password or a
 * two-factor code at sign-in, or the password that turns two-factor sign-in off (a stolen session
 * must not be a way to guess the password without limit).
 */
export function admitAttempt(context: SiteContext, request: Request, email: string): Promise<boolean> {

    return admitSignInAttempt(context.rateLimits, context.policies().site, { email, ip: clientOf(request).ip });
}
