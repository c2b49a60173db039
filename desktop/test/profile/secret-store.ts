import Fs from 'fs';
import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import { openSecretStore, probeKeyring } from '../../src/profile/secret-store';

import { scratchHome, type ScratchHome, setEnv } from './scratch';

export const lab = Lab.script();
const { after, before, describe, it } = lab;

describe('openSecretStore()', () => {

    let scratch: ScratchHome;

    before(async () => {

        scratch = await scratchHome();
    });

    after(() => scratch.restore());

    it('keeps the secrets in a 0600 key file when forced to, warning as gh does, and remembers the choice', async () => {

        setEnv({ FAMILY_RECORDS_DESKTOP_KEY_STORE: 'file' });
        try {
            const profile = await scratch.profile('usr_file');
            const secrets = await openSecretStore(profile);
            const path = Path.join(profile.dir, 'secrets.json');
            expect(secrets.kind).to.equal('file');
            expect(secrets.description).to.equal(`the key file ${path}, readable only by you`);
            expect(secrets.warning).to.equal(`The cache key and the refresh token are stored in plain text in ${path}, readable only by you; install a Secret Service keyring (GNOME Keyring, KWallet) to keep them there instead`);

            expect(await secrets.get('refresh-token')).to.be.undefined();
            await secrets.set('refresh-token', 'refresh-1');
            await secrets.set('cache-key', 'key-1');
            await secrets.set('refresh-token', 'refresh-2');
            expect(await secrets.get('refresh-token')).to.equal('refresh-2');
            expect(await secrets.get('cache-key')).to.equal('key-1');
            expect((await Fs.promises.stat(path)).mode & 0o777).to.equal(0o600);
            expect(JSON.parse(await Fs.promises.readFile(Path.join(profile.dir, 'store.json'), 'utf8'))).to.equal({ keyStore: 'file' });
            expect((await Fs.promises.readdir(profile.dir)).filter((name) => name.endsWith('.tmp'))).to.equal([]);

            await secrets.deleteAll();
            expect(await secrets.get('cache-key')).to.be.undefined();
            await expect(Fs.promises.stat(path)).to.reject(/ENOENT/);

            setEnv({ FAMILY_RECORDS_DESKTOP_KEY_STORE: 'keyring' });
            await expect(openSecretStore(profile)).to.reject(`FAMILY_RECORDS_DESKTOP_KEY_STORE=keyring, but the secrets of profile ${profile.name} are in the key file: unset it, or disconnect and connect again`);
            setEnv({ FAMILY_RECORDS_DESKTOP_KEY_STORE: 'vault' });
            await expect(openSecretStore(profile)).to.reject(/Invalid FAMILY_RECORDS_DESKTOP_KEY_STORE=vault/);
        }
        finally {
            setEnv({ FAMILY_RECORDS_DESKTOP_KEY_STORE: undefined });
        }
    });

    it('falls back to the key file without a D-Bus session bus, and the choice holds for the profile afterwards', async () => {

        const bus = process.env.DBUS_SESSION_BUS_ADDRESS;
        setEnv({ DBUS_SESSION_BUS_ADDRESS: undefined });
        try {
            const keysBefore = ourKernelKeys();
            const profile = await scratch.profile('usr_fallback');
            const secrets = await openSecretStore(profile);
            expect(secrets.kind).to.equal('file');
            expect(secrets.warning).to.contain('stored in plain text');
            expect(await probeKeyring()).to.contain('DBUS_SESSION_BUS_ADDRESS');
            expect(JSON.parse(await Fs.promises.readFile(Path.join(profile.dir, 'store.json'), 'utf8'))).to.equal({ keyStore: 'file' });
            expect(ourKernelKeys()).to.equal(keysBefore);
        }
        finally {
            setEnv({ DBUS_SESSION_BUS_ADDRESS: bus });
        }
    });

    it('forced to the keyring, either round-trips through it or refuses clearly, and never leaves a secret in the kernel keyring', async () => {

        const keysBefore = ourKernelKeys();
        const bus = process.env.DBUS_SESSION_BUS_ADDRESS;
        setEnv({ FAMILY_RECORDS_DESKTOP_KEY_STORE: 'keyring' });
        try {
            const profile = await scratch.profile('usr_keyring');
            const failure = await probeKeyring();
            if (failure) {
                await expect(openSecretStore(profile)).to.reject(`FAMILY_RECORDS_DESKTOP_KEY_STORE=keyring, but no system keyring answers: ${failure}`);
                await expect(Fs.promises.stat(Path.join(profile.dir, 'store.json'))).to.reject(/ENOENT/);
            }
            else {
                const secrets = await openSecretStore(profile);
                expect(secrets.kind).to.equal('keyring');
                expect(secrets.warning).to.be.undefined();
                await secrets.set('refresh-token', 'keyring-refresh');
                expect(await secrets.get('refresh-token')).to.equal('keyring-refresh');
                await secrets.deleteAll();
                expect(await secrets.get('refresh-token')).to.be.undefined();
            }

            // A bus address that leads nowhere: the library must not fall back to the kernel keyring either.
            setEnv({ DBUS_SESSION_BUS_ADDRESS: `unix:path=${Path.join(scratch.home, 'no-bus')}` });
            await expect(openSecretStore(await scratch.profile('usr_nobus'))).to.reject(/no system keyring answers/);
            expect(ourKernelKeys()).to.equal(keysBefore);
        }
        finally {
            setEnv({ FAMILY_RECORDS_DESKTOP_KEY_STORE: undefined, DBUS_SESSION_BUS_ADDRESS: bus });
        }
    });
});


/** The keys of this client in the kernel keyring (where the keyring library falls back to without a Secret Service). */
function ourKernelKeys(): string[] {

    const keys = Fs.existsSync('/proc/keys') ? Fs.readFileSync('/proc/keys', 'utf8') : '';
    return keys.split('\n').filter((line) => line.includes('family-records-desktop'));
}
