import ChildProcess from 'child_process';
import Fs from 'fs';
import Os from 'os';
import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

export const lab = Lab.script();
const { describe, it } = lab;

/*
 * The system keyring for real: a D-Bus session of its own (dbus-run-session) with GNOME Keyring's Secret Service in
 * it, unlocked, as a desktop session has. Debian's dbus and gnome-keyring; skipped without them.
 */

const programs = ['/usr/bin/dbus-run-session', '/usr/bin/gnome-keyring-daemon'];
const secretServiceAvailable = process.platform === 'linux' && programs.every((program) => Fs.existsSync(program));

/** What the child does inside the session: the profile's secret store as the client opens it, used, then emptied. */
const inSession = `
const Fs = require('fs');
const Path = require('path');
const { openSecretStore, saveProfile } = require(${JSON.stringify(Path.join(__dirname, '../../src/index.js'))});
(async () => {
    const profile = await saveProfile({ serverUrl: 'http://127.0.0.1:3000', userId: 'usr_keyring', email: 'k@example.com',
        familyName: 'The Keyrings', deviceName: 'Test laptop', createdAt: new Date().toISOString() });
    const secrets = await openSecretStore(profile);
    await secrets.set('cache-key', 'key-in-the-keyring');
    await secrets.set('refresh-token', 'frr_in_the_keyring');
    const again = await openSecretStore(profile);
    const read = [await again.get('cache-key'), await again.get('refresh-token')];
    await again.deleteAll();
    const files = Fs.readdirSync(profile.dir);
    const contents = files.map((file) => Fs.readFileSync(Path.join(profile.dir, file), 'utf8')).join('\\n');
    console.log(JSON.stringify({ kind: secrets.kind, description: secrets.description, warning: secrets.warning ?? null, read,
        afterDelete: await again.get('refresh-token') ?? null, files, onDisk: contents.includes('in_the_keyring') || contents.includes('in-the-keyring') }));
})().catch((error) => { console.error(error); process.exit(1); });
`;

describe('the secret store with a Secret Service', { skip: !secretServiceAvailable }, () => {

    it('keeps the cache key and the refresh token in the keyring, none of them in a file, and deletes them', async () => {

        const home = await Fs.promises.mkdtemp(Path.join(Os.tmpdir(), 'frd-keyring-'));
        const script = `echo -n test | gnome-keyring-daemon --unlock --components=secrets > /dev/null && exec node -e "$CHILD"`;
        const { FAMILY_RECORDS_DESKTOP_KEY_STORE: _forced, ...env } = process.env;
        const result = ChildProcess.spawnSync('dbus-run-session', ['--', 'sh', '-c', script], {
            env: { ...env, FAMILY_RECORDS_DESKTOP_HOME: home, CHILD: inSession, HOME: home },
            encoding: 'utf8',
            timeout: 60_000
        });

        await Fs.promises.rm(home, { recursive: true, force: true });
        expect(result.status, result.stderr).to.equal(0);
        const seen = JSON.parse(result.stdout.trim().split('\n').pop()!);
        expect(seen).to.equal({
            kind: 'keyring',
            description: 'the system keyring (Secret Service)',
            warning: null,
            read: ['key-in-the-keyring', 'frr_in_the_keyring'],
            afterDelete: null,
            files: ['profile.json', 'store.json'],
            onDisk: false
        });
    });
});
