import Crypto from 'crypto';

import type { Request, ResponseObject, ResponseToolkit, RouteOptions } from '@hapi/hapi';
import Boom from '@hapi/boom';
import Joi from 'joi';
import { Op, UniqueConstraintError } from 'sequelize';

import { sameBytes } from '../../lib/same-bytes';
import type { Models } from '../../models';
import type { SiteContext } from './context';
import { findSession, signedInSessionId } from './sessions';

/*
 * One-time form tokens. A form whose answer shows something once (a new API key, a webhook
 * signing secret, recovery codes) cannot redirect after its work (POST, redirect, GET): what it
 * shows would have to travel in a URL, a cookie or the session. So reloading that answer, or going
 * Back and sending again, would send the form again: a second key nobody saw, a second endpoint, a
 * secret rotated twice. Each such form carries a token made when its page is drawn, bound to the
 * session by an HMAC keyed with the session id; the first send claims it in the database (shared by
 * every instance) and every later one gets a page saying what the first made, never the work again.
 */

const formTokenField = 'form_token';

/** What a form sent once makes: the words of the page that answers it sent again (templates/pages/form-resent.hbs). */
type SentOnceMakes = 'api-key' | 'webhook-endpoint' | 'webhook-secret' | 'recovery-codes';

/** A handler's answer to a form sent once: its page and, when it made something, that thing's name for the resend page. */
interface SentOnceAnswer {
    page: ResponseObject;
    /** A key's name, an endpoint's URL; '' when what was made has no name. Absent: nothing was made (a refusal), so the token may be sent again. */
    made?: string;
}

const macOf = (sessionId: string, nonce: string) => Crypto.createHmac('sha256', sessionId).update(nonce).digest('base64url');

/** A token for the forms of a page drawn for a signed-in session; undefined without one. */
export function issueFormToken(request: Request): string | undefined {

    const sessionId = signedInSessionId(request);
    if (!sessionId) {
        return undefined;
    }

    const nonce = Crypto.randomBytes(16).toString('base64url');
    return `${nonce}.${macOf(sessionId, nonce)}`;
}

/** The random part of a token issued in this request's session; undefined for any other text. */
function nonceOf(request: Request, token: string): string | undefined {

    const sessionId = signedInSessionId(request);
    const [nonce, mac, extra] = token.split('.');
    if (!sessionId || !nonce || !mac || extra !== undefined) {
        return undefined;
    }

    return sameBytes(Buffer.from(macOf(sessionId, nonce)), Buffer.from(mac)) ? nonce : undefined;
}

/** Claims the token for this send; when it was sent before, returns what that send made (null: still being made, or it failed). */
async function claim(models: Models, nonce: string, expiresAt: Date): Promise<{ sentAt: Date; outcome: string | null } | undefined> {

    try {
        await models.SiteFormToken.create({ nonce, sent_at: new Date(), outcome: null, expires_at: expiresAt });
        return undefined;
    }
    catch (error) {
        if (!(error instanceof UniqueConstraintError)) {
            throw error;
        }

        // No row by now: the first send made nothing and let the token go meanwhile.
        const first = await models.SiteFormToken.findByPk(nonce);
        return { sentAt: first?.sent_at ?? new Date(), outcome: first?.outcome ?? null };
    }
}

interface SentOnceRoute {
    auth: RouteOptions['auth'];
    validate?: { params?: Joi.ObjectSchema; payload?: Joi.ObjectSchema };
    makes: SentOnceMakes;
    /** Where the resend page leads: where what was made is listed. */
    back: (request: Request) => string;
    handler: (request: Request, h: ResponseToolkit) => Promise<SentOnceAnswer>;
}

/**
 * The route options of a form sent once: its payload takes the form token, and its handler runs
 * only for the token's first send. A resend is answered 409 with what the first send made; a token
 * of another session, or none, is refused as an out-of-date form (403). A send refused (in words on
 * the form, or a 404) made nothing and lets its token go, so the form may be sent again.
 */
export function sentOnce(context: SiteContext, route: SentOnceRoute): RouteOptions {

    const { models } = context;
    return {
        auth: route.auth,
        validate: { ...route.validate, payload: (route.validate?.payload ?? Joi.object()).keys({ [formTokenField]: Joi.string().max(200).allow('').default('') }) },
        async handler(request, h) {

            const nonce = nonceOf(request, (request.payload as Record<string, string>)[formTokenField]);
            const session = nonce && await findSession(models, request.auth.artifacts, false);
            if (!nonce || !session) {
                throw Boom.forbidden('The form token is missing, or was issued to another session.');
            }

            const first = await claim(models, nonce, session.expires_at);
            if (first) {
                return h.view('form-resent', { title: 'This form was already sent', makes: route.makes, pending: first.outcome === null, outcome: first.outcome, sentAt: first.sentAt, back: route.back(request) }).code(409);
            }

            let answer: SentOnceAnswer;
            try {
                answer = await route.handler(request, h);
            }
            catch (error) {
                // A refusal (a 404, a 403) made nothing; after a failure of ours the key may exist all the same: no second one.
                if (Boom.isBoom(error) && error.output.statusCode < 500) {
                    await models.SiteFormToken.destroy({ where: { nonce } });
                }

                throw error;
            }

            await (answer.made === undefined ? models.SiteFormToken.destroy({ where: { nonce } }) : models.SiteFormToken.update({ outcome: answer.made }, { where: { nonce } }));
            return answer.page;
        }
    };
}

/** Tokens of sessions that have ended are refused anyway: their rows go. */
export async function forgetExpiredFormTokens(models: Models): Promise<number> {

    return models.SiteFormToken.destroy({ where: { expires_at: { [Op.lte]: new Date() } } });
}
