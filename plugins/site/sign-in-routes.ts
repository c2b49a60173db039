import type { Lifecycle, Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';

import type { User } from '../../models/user';
import { audit } from '../../lib/audit-log';
import { siteUser, type SiteUser } from './credentials';
import { rotateCsrfToken } from '../../lib/csrf';
import { rememberDevice } from './device-cookie';
import { twoFactorCookie, type SiteContext } from './context';
import { forgetExpiredFormTokens } from './form-tokens';
import { typedText } from './forms';
import { withNotice } from './notices';
import { signInPage } from './route-auth';
import type { SessionCookies } from './session-strategy';
import { deleteExpiredSessions, endSession, findSession, startSession } from './sessions';
import { accountDisabled, signInFailed, throttledAttempt, userWithPassword } from './sign-in';
import { accountSubject } from './sign-in-throttle';
import { takeRecoveryCode, takeTotpStep, totpStepOf, unsealSecret } from './two-factor';

/** Where a signed-in user starts: their family's APIs page, the admin area, or their account. */
export function homeOf(user: SiteUser): string {

    return user.role === 'manager' ? '/manage/apis' : user.isSuperAdmin ? '/admin/apis' : '/account/security';
}

const thisSite = 'http://this-site.invalid';

/**
 * Only a path of this site, read as a browser reads it: `//evil.example`, `/\evil.example`
 * and `/<tab>/evil.example` (browsers drop tabs and newlines) are other sites. Returned
 * percent-encoded, so no character of it can break the Location header.
 */
function safeNext(next: string | undefined): string | undefined {

    const url = next?.startsWith('/') && URL.canParse(next, thisSite) ? new URL(next, thisSite) : undefined;      // not URL.parse: Node 20 before 20.18 has none
    return url?.origin === thisSite ? `${url.pathname}${url.search}${url.hash}` : undefined;
}

const nextField = Joi.string().allow('').max(2000);

export function signInRoutes(context: SiteContext, sessionCookies: SessionCookies): ServerRoute[] {

    const { models } = context;
    const lifetimeMs = () => context.policies().site.sessions.lifetime_hours * 3_600_000;

    /** The password (and code) were right: a session of its own, audited, and on to where the user was going; none for a disabled user. */
    async function signIn(request: Request, h: ResponseToolkit, user: User, next: string | undefined, action: 'session.sign_in' | 'two_factor.recovery_code_used' = 'session.sign_in') {

        if (user.disabled_at) {
            return h.view('login', { title: 'Sign in', next, email: user.email, error: accountDisabled }).code(403);
        }

        sessionCookies.set(h, await startSession(models, request, user.id, { twoFactorPending: false, lifetimeMs: lifetimeMs() }));
        // A token a page showed before the sign-in (to someone else on this browser, or planted) must not serve the session.
        rotateCsrfToken(h);
        rememberDevice(request, h, accountSubject(user.email));
        await audit(models, request, { action, actor: { id: user.id, email: user.email }, familyLongId: user.family_long_id });
        await deleteExpiredSessions(models);
        await forgetExpiredFormTokens(models);
        return h.redirect(safeNext(next) ?? homeOf({ role: user.role, isSuperAdmin: user.is_super_admin } as SiteUser));
    }

    const passwordForm: Lifecycle.Method = (request, h) => {

        if (request.auth.isAuthenticated) {
            return h.redirect(safeNext(request.query.next as string | undefined) ?? homeOf(siteUser(request)));
        }

        return h.view('login', { title: 'Sign in', next: request.query.next });
    };

    const signInWithPassword: Lifecycle.Method = async (request, h) => {

        const { email, password, next } = request.payload as { email: string; password: string; next?: string };
        const user = await throttledAttempt(context, request, email, () => userWithPassword(models, email, password));
        if (!user) {
            return h.view('login', { title: 'Sign in', next, email, error: signInFailed }).code(401);
        }

        if (!user.totp_enabled_at) {
            return signIn(request, h, user, next);
        }

        const pending = await startSession(models, request, user.id, { twoFactorPending: true, lifetimeMs: context.policies().site.sessions.two_factor_minutes * 60_000 });
        h.state(twoFactorCookie, pending);
        return h.redirect(`/login/two-factor${next ? `?next=${encodeURIComponent(next)}` : ''}`);
    };

    const codeForm: Lifecycle.Method = async (request, h) => {

        if (!await findSession(models, request.state[twoFactorCookie], true)) {
            return h.redirect('/login');
        }

        return h.view('two-factor', { title: 'Two-factor sign-in', next: request.query.next });
    };

    const signInWithCode: Lifecycle.Method = async (request, h) => {

        const { code, next } = request.payload as { code: string; next?: string };
        const pending = await findSession(models, request.state[twoFactorCookie], true);
        const user = pending && await models.User.findByPk(pending.user_id);
        if (!pending || !user?.totp_secret || !user.totp_enabled_at) {
            return h.redirect('/login');
        }

        const secret = unsealSecret(user.totp_secret, context.twoFactorKeys.totpSecrets);
        const taken = await throttledAttempt(context, request, user.email, async () => {

            const step = totpStepOf(secret, user.email, code);
            if (step !== undefined && await takeTotpStep(models, user.id, step)) {
                return 'app code';
            }

            return await takeRecoveryCode(context, user.id, code) ? 'recovery code' : undefined;
        });
        if (!taken) {
            return h.view('two-factor', { title: 'Two-factor sign-in', next, error: 'That code is not right, or there were too many attempts. Try the current code from your app.' }).code(401);
        }

        await pending.destroy();
        h.unstate(twoFactorCookie);
        return signIn(request, h, user, next, taken === 'app code' ? undefined : 'two_factor.recovery_code_used');
    };

    const signOut: Lifecycle.Method = async (request, h) => {

        if (request.auth.isAuthenticated) {
            await audit(models, request, { action: 'session.sign_out', familyLongId: siteUser(request).familyLongId });
            await endSession(models, request.auth.artifacts);
            sessionCookies.clear(h);
        }

        return h.redirect(withNotice('/login', 'signed-out'));
    };

    return [
        {
            method: 'GET',
            path: '/',
            options: {
                auth: signInPage,
                handler: (request, h) => h.redirect(request.auth.isAuthenticated ? homeOf(siteUser(request)) : '/login')
            }
        },
        {
            method: 'GET',
            path: '/login',
            options: {
                auth: signInPage,
                validate: { query: Joi.object({ next: nextField, notice: Joi.string() }) },
                handler: passwordForm
            }
        },
        {
            method: 'POST',
            path: '/login',
            options: {
                auth: signInPage,
                validate: {
                    payload: Joi.object({
                        email: typedText('email').allow('').default(''),
                        password: Joi.string().allow('').max(200).default(''),
                        next: nextField
                    })
                },
                handler: signInWithPassword
            }
        },
        {
            method: 'GET',
            path: '/login/two-factor',
            options: { auth: signInPage, validate: { query: Joi.object({ next: nextField }) }, handler: codeForm }
        },
        {
            method: 'POST',
            path: '/login/two-factor',
            options: {
                auth: signInPage,
                validate: { payload: Joi.object({ code: Joi.string().allow('').max(40).default(''), next: nextField }) },
                handler: signInWithCode
            }
        },
        {
            method: 'GET',
            path: '/logout',
            options: {
                auth: signInPage,
                handler: (request, h) => (request.auth.isAuthenticated ? h.view('logout', { title: 'Sign out' }) : h.redirect('/login'))
            }
        },
        { method: 'POST', path: '/logout', options: { auth: signInPage, handler: signOut } }
    ];
}
