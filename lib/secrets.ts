import Crypto from 'crypto';

import type { Models } from '../models';
import { ConfigError } from './config';
import { sameBytes } from './same-bytes';

/**
 * The master secret: SECRET_KEY when set (production), otherwise one generated
 * on first start and kept in the database (the embedded default). The database keeps
 * a check value of the first SECRET_KEY it meets, so a process started with another
 * one, or without one (a CLI run without the service's environment, say), stops instead
 * of writing API keys, sessions and webhook secrets the service would never read.
 */
export async function masterSecret(models: Models, configured?: string): Promise<Buffer> {

    if (!configured) {
        return storedSecret(models);
    }

    const secret = Buffer.from(configured);
    await checkSameSecret(models, secret);
    return secret;
}

/** A key for one purpose, derived from the master secret, so purposes never share a key. */
export function derivedKey(master: Buffer, purpose: string): Buffer {

    return Buffer.from(Crypto.hkdfSync('sha256', master, Buffer.alloc(0), purpose, 32));
}

async function storedSecret(models: Models): Promise<Buffer> {

    // Before the kept secret: a CLI run without SECRET_KEY may once have generated one in a database used with SECRET_KEY.
    if (await models.ServiceSetting.findByPk('secret_key_check')) {
        throw new ConfigError('Invalid configuration: SECRET_KEY is not set, but this database is used with one: set the SECRET_KEY the service runs with (the CLI needs it too).');
    }

    const stored = await models.ServiceSetting.findByPk('secret_key');
    if (stored) {
        return Buffer.from(stored.value);
    }

    const generated = Crypto.randomBytes(32).toString('base64url');
    await models.ServiceSetting.findOrCreate({ where: { name: 'secret_key' }, defaults: { name: 'secret_key', value: generated } });
    const winner = await models.ServiceSetting.findByPk('secret_key');     // another instance may have won the race
    return Buffer.from(winner!.value);
}

/** The first SECRET_KEY a database meets is its own: its check value (derived, it reveals nothing of the secret) is kept. */
async function checkSameSecret(models: Models, secret: Buffer): Promise<void> {

    const check = derivedKey(secret, 'secret-key-check');
    const [setting] = await models.ServiceSetting.findOrCreate({ where: { name: 'secret_key_check' }, defaults: { name: 'secret_key_check', value: check.toString('base64url') } });
    const kept = Buffer.from(setting.value, 'base64url');
    if (!sameBytes(kept, check)) {
        throw new ConfigError('Invalid configuration: SECRET_KEY is not the secret this database is used with: API keys, sessions, signed file URLs and webhook secrets would not verify. Set the SECRET_KEY the service runs with (the CLI needs it too).');
    }
}
