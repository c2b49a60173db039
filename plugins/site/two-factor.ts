import Crypto from 'crypto';

import * as OTPAuth from 'otpauth';
import QRCode from 'qrcode';
import { Op, type InferAttributes, type WhereAttributeHash } from 'sequelize';

import type { Models } from '../../models';
import type { User } from '../../models/user';
import type { SiteContext } from './context';

/*
 * Two-factor sign-in with TOTP (RFC 6238: 6 digits, 30 s, SHA-1: what every
 * authenticator app reads from the QR code) and one-time recovery codes.
 */

const issuer = 'Family Records';
const recoveryCodeCount = 10;
// No 0/o, 1/l/i: a code copied from paper is read right.
const recoveryAlphabet = 'abcdefghjkmnpqrstuvwxyz23456789';

export function newTotpSecret(): string {

    return new OTPAuth.Secret({ size: 20 }).base32;
}

function totp(secret: string, email: string): OTPAuth.TOTP {

    return new OTPAuth.TOTP({ issuer, label: email, algorithm: 'SHA1', digits: 6, period: 30, secret: OTPAuth.Secret.fromBase32(secret) });
}

/** The enrolment QR code, as SVG markup of our own making (safe to embed), and the URI it encodes. */
export async function enrolmentCode(secret: string, email: string): Promise<{ uri: string; svg: string }> {

    const uri = totp(secret, email).toString();
    return { uri, svg: await QRCode.toString(uri, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' }) };
}

/**
 * The time step (RFC 6238's T: 30 s periods since the epoch) of a code of the current step, or of
 * the one before or after it (clocks drift); undefined for any other code.
 */
export function totpStepOf(secret: string, email: string, code: string): number | undefined {

    const token = code.replace(/\s/g, '');
    if (!/^\d{6}$/.test(token)) {
        return undefined;
    }

    const timestamp = Date.now();
    const generator = totp(secret, email);
    const delta = generator.validate({ token, timestamp, window: 1 });
    return delta === null ? undefined : generator.counter({ timestamp }) + delta;
}

/**
 * Takes a code's time step for the user, once: a code accepted before, or one of an earlier step,
 * is refused (RFC 6238 §5.2), so a code read over a shoulder or from a log cannot be sent again. One
 * conditional UPDATE: of two requests with the same code at once, only one changes the row. `also`
 * sets more in the same statement, when its `where` holds too (turning two-factor sign-in on).
 */
export async function takeTotpStep(models: Models, userId: string, step: number,
    also: { set?: Partial<InferAttributes<User>>; where?: WhereAttributeHash<InferAttributes<User>> } = {}): Promise<boolean> {

    const [changed] = await models.User.update({ ...also.set, totp_last_step: step }, {
        where: { ...also.where, id: userId, [Op.or]: [{ totp_last_step: null }, { totp_last_step: { [Op.lt]: step } }] }
    });
    return changed === 1;
}

export function sealSecret(secret: string, key: Buffer): string {

    const iv = Crypto.randomBytes(12);
    const cipher = Crypto.createCipheriv('aes-256-gcm', key, iv);
    const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return `v1.${Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url')}`;
}

export function unsealSecret(sealed: string, key: Buffer): string {

    const bytes = Buffer.from(sealed.replace(/^v1\./, ''), 'base64url');
    const decipher = Crypto.createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12));
    decipher.setAuthTag(bytes.subarray(12, 28));
    return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
}

/** `abcde-fghjk`: about 50 random bits each, so a fast keyed hash is enough to store them. */
export function newRecoveryCodes(): string[] {

    return Array.from({ length: recoveryCodeCount }, () => {

        const characters = Array.from({ length: 10 }, () => recoveryAlphabet[Crypto.randomInt(recoveryAlphabet.length)]);
        return `${characters.slice(0, 5).join('')}-${characters.slice(5).join('')}`;
    });
}

export function hashRecoveryCode(code: string, key: Buffer): string {

    const normalised = code.toLowerCase().replace(/[^a-z0-9]/g, '');
    return Crypto.createHmac('sha256', key).update(normalised).digest('hex');
}

/**
 * Strikes an unused recovery code of the user's off, once: the row stays locked from reading the
 * codes to writing what is left, so two sign-ins sending the same code at once cannot both use it.
 */
export async function takeRecoveryCode(context: SiteContext, userId: string, code: string): Promise<boolean> {

    if (!code.trim()) {
        return false;
    }

    const taken = hashRecoveryCode(code, context.twoFactorKeys.recoveryCodes);
    return context.accounts.transaction(async (transaction) => {

        const user = await context.models.User.findByPk(userId, { transaction, lock: transaction.LOCK.UPDATE });
        const unused = user?.recovery_code_hashes ?? [];
        if (!unused.includes(taken)) {
            return false;
        }

        await user!.update({ recovery_code_hashes: unused.filter((hash) => hash !== taken) }, { transaction });
        return true;
    });
}
