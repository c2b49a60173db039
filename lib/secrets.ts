import Crypto from 'crypto';

import type { Models } from '../models';

/**
 * The master secret: SECRET_KEY when set (production), otherwise one generated
 * on first start and kept in the database (the embedded default).
 */
export async function masterSecret(models: Models, configured?: string): Promise<Buffer> {

    if (configured) {
        return Buffer.from(configured);
    }

    const generated = Crypto.randomBytes(32).toString('base64url');
    await models.ServiceSetting.findOrCreate({ where: { name: 'secret_key' }, defaults: { name: 'secret_key', value: generated } });
    const stored = await models.ServiceSetting.findByPk('secret_key');     // another instance may have won the race
    return Buffer.from(stored!.value);
}

/** A key for one purpose, derived from the master secret, so purposes never share a key. */
export function derivedKey(master: Buffer, purpose: string): Buffer {

    return Buffer.from(Crypto.hkdfSync('sha256', master, Buffer.alloc(0), purpose, 32));
}
