import Crypto from 'crypto';

import type { Request } from '@hapi/hapi';
import { Op } from 'sequelize';

import { clientOf } from '../../lib/audit-log';
import type { Models } from '../../models';
import type { SiteSession } from '../../models/site-session';

/** What the sign-in cookies carry: the session id, sealed by the cookie's iron encoding. */
export interface SessionCookie {
    sid: string;
}

function hashOf(sid: string): string {

    return Crypto.createHash('sha256').update(sid).digest('hex');
}

/**
 * Starts a session and returns the cookie that names it. A session waiting for the
 * two-factor code lives in a cookie of its own and never authenticates a page.
 */
export async function startSession(models: Models, request: Request, userId: string, options: { twoFactorPending: boolean; lifetimeMs: number }): Promise<SessionCookie> {

    const sid = Crypto.randomBytes(32).toString('base64url');
    const { ip, userAgent } = clientOf(request);
    const now = Date.now();
    await models.SiteSession.create({
        id_hash: hashOf(sid),
        user_id: userId,
        two_factor_pending: options.twoFactorPending,
        ip,
        user_agent: userAgent,
        created_at: new Date(now),
        expires_at: new Date(now + options.lifetimeMs)
    });

    return { sid };
}

/** The live session a cookie names, if any: unexpired, and at the sign-in stage asked for. */
export async function findSession(models: Models, cookie: unknown, twoFactorPending: boolean): Promise<SiteSession | undefined> {

    const sid = (cookie as Partial<SessionCookie> | undefined)?.sid;
    if (typeof sid !== 'string') {
        return undefined;
    }

    const session = await models.SiteSession.findOne({ where: { id_hash: hashOf(sid), two_factor_pending: twoFactorPending, expires_at: { [Op.gt]: new Date() } } });
    return session ?? undefined;
}

/** The id of the session a request is signed in with (the `site-session` strategy), if any. */
export function signedInSessionId(request: Request): string | undefined {

    const sid = request.auth.isAuthenticated && request.auth.strategy === 'site-session' ? (request.auth.artifacts as Partial<SessionCookie> | undefined)?.sid : undefined;
    return typeof sid === 'string' ? sid : undefined;
}

/** Ends a session for good: its cookie, even if copied, signs nobody in again. */
export async function endSession(models: Models, cookie: unknown): Promise<void> {

    const sid = (cookie as Partial<SessionCookie> | undefined)?.sid;
    if (typeof sid === 'string') {
        await models.SiteSession.destroy({ where: { id_hash: hashOf(sid) } });
    }
}

export async function deleteExpiredSessions(models: Models): Promise<number> {

    return models.SiteSession.destroy({ where: { expires_at: { [Op.lte]: new Date() } } });
}
