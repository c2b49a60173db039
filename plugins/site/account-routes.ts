import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import Bcrypt from 'bcrypt';
import Joi from 'joi';

import type { User } from '../../models/user';
import { audit } from '../../lib/audit-log';
import { ServiceError } from '../../lib/errors';
import { siteUser } from './credentials';
import type { SiteContext } from './context';
import { formAction, redirectWithNotice } from './form-action';
import { sentOnce } from './form-tokens';
import { signedInPage } from './route-auth';
import { throttledAttempt } from './sign-in';
import { enrolmentCode, hashRecoveryCode, newRecoveryCodes, newTotpSecret, sealSecret, takeTotpStep, totpStepOf, unsealSecret } from './two-factor';

/** Account security: turning two-factor sign-in on (QR code, confirmation code, recovery codes) and off. */
export function accountRoutes(context: SiteContext): ServerRoute[] {

    const { models } = context;
    const { totpSecrets, recoveryCodes } = context.twoFactorKeys;

    const signedInUser = async (request: Request) => (await models.User.findByPk(siteUser(request).id))!;

    const securityPage = (h: ResponseToolkit, user: User, error?: string) => h.view('account-security', {
        title: 'Account security',
        twoFactorOn: Boolean(user.totp_enabled_at),
        enabledAt: user.totp_enabled_at,
        recoveryCodesLeft: user.recovery_code_hashes?.length ?? 0,
        error
    }).code(error ? 422 : 200);

    /** The enrolment page for the secret stored (not yet confirmed) on the user. */
    async function setupPage(h: ResponseToolkit, user: User, error?: string) {

        const secret = unsealSecret(user.totp_secret!, totpSecrets);
        const { uri, svg } = await enrolmentCode(secret, user.email);
        return h.view('two-factor-setup', {
            title: 'Set up two-factor sign-in',
            qrCode: svg,
            uri,
            // Grouped by four, as authenticator apps show secrets typed by hand.
            secret: secret.match(/.{1,4}/g)!.join(' '),
            error
        }).code(error ? 422 : 200);
    }

    return [
        {
            method: 'GET',
            path: '/account/security',
            options: {
                auth: signedInPage,
                async handler(request, h) {

                    return securityPage(h, await signedInUser(request));
                }
            }
        },
        {
            method: 'POST',
            path: '/account/two-factor/setup',
            options: {
                auth: signedInPage,
                async handler(request, h) {

                    const user = await signedInUser(request);
                    if (user.totp_enabled_at) {
                        return h.redirect('/account/security');
                    }

                    // Stored before it is confirmed, but sign-in asks for codes only once totp_enabled_at is set.
                    // A secret already waiting for its code is shown again, not replaced: the setup form sent
                    // twice (a double click, a reload, a second tab) must not void the QR code already scanned.
                    if (!user.totp_secret) {
                        await user.update({ totp_secret: sealSecret(newTotpSecret(), totpSecrets) });
                    }

                    return setupPage(h, user);
                }
            }
        },
        {
            method: 'POST',
            path: '/account/two-factor/confirm',
            options: sentOnce(context, {
                auth: signedInPage,
                validate: { payload: Joi.object({ code: Joi.string().allow('').max(20).default('') }) },
                makes: 'recovery-codes',
                back: () => '/account/security',
                async handler(request, h) {

                    const user = await signedInUser(request);
                    if (user.totp_enabled_at || !user.totp_secret) {
                        return { page: h.redirect('/account/security') };
                    }

                    const { code } = request.payload as { code: string };
                    const step = totpStepOf(unsealSecret(user.totp_secret, totpSecrets), user.email, code);
                    const codes = newRecoveryCodes();
                    // The code that turns it on is taken like any other: it cannot sign in afterwards.
                    const enabled = step !== undefined && await takeTotpStep(models, user.id, step, {
                        set: { totp_enabled_at: new Date(), recovery_code_hashes: codes.map((recovery) => hashRecoveryCode(recovery, recoveryCodes)) },
                        where: { totp_enabled_at: null }
                    });
                    if (!enabled) {
                        return { page: await setupPage(h, user, 'That code is not right. Type the 6 digits your app shows now.') };
                    }

                    await audit(models, request, { action: 'two_factor.enable', familyLongId: user.family_long_id, target: user.id });
                    // The codes are on this page only (hence sentOnce).
                    return { page: h.view('recovery-codes', { title: 'Save your recovery codes', codes }), made: '' };
                }
            })
        },
        {
            method: 'POST',
            path: '/account/two-factor/disable',
            options: {
                auth: signedInPage,
                validate: { payload: Joi.object({ password: Joi.string().allow('').max(200).default('') }) },
                handler: formAction(models, {
                    async run(request) {

                        const user = await signedInUser(request);
                        const { password } = request.payload as { password: string };
                        // Throttled as sign-in is: its failures count against the account and the address.
                        if (!await throttledAttempt(context, request, user.email, async () => (await Bcrypt.compare(password, user.password_hash) ? true : undefined))) {
                            throw new ServiceError('invalid_request', 'That password is not right, or there were too many attempts. Try again in a few minutes.');
                        }

                        return await user.update({ totp_secret: null, totp_enabled_at: null, totp_last_step: null, recovery_code_hashes: null });
                    },
                    refused: async (request, h, refusal) => securityPage(h, await signedInUser(request), refusal.message),
                    audited: (_request, user) => ({ action: 'two_factor.disable', familyLongId: user.family_long_id, target: user.id }),
                    answer: (_request, h) => redirectWithNotice(h, '/account/security', 'two-factor-off')
                })
            }
        }
    ];
}
