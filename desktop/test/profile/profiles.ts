import Fs from 'fs';
import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import { desktopHome } from '../../src/profile/paths';
import { currentProfile, listProfiles, profileName, removeProfile, setCurrentProfile } from '../../src/profile/profiles';

import { scratchHome, type ScratchHome, setEnv, walk } from './scratch';

export const lab = Lab.script();
const { after, before, describe, it } = lab;

describe('profiles', () => {

    let scratch: ScratchHome;

    before(async () => {

        scratch = await scratchHome();
    });

    after(() => scratch.restore());

    it('names a profile after the server and the account, file-safe', () => {

        expect(profileName('http://127.0.0.1:3000', 'usr_abc')).to.equal('127.0.0.1-3000--usr_abc');
        expect(profileName('https://Records.Example.com/family/', 'usr_abc')).to.equal('records.example.com-family--usr_abc');
        expect(profileName('http://[::1]:8080', 'usr/../x')).to.equal('1-8080--usr-..-x');
        expect(profileName('https://example.com', '..')).to.equal('example.com--x');
    });

    it('keeps the home and every profile directory 0700 and profile.json 0600, whatever the umask, narrowing a looser existing one', async () => {

        const umask = process.umask(0o022);
        try {
            await Fs.promises.chmod(scratch.home, 0o755);
            const profile = await scratch.profile('usr_perm');
            expect(profile.dir).to.equal(Path.join(scratch.home, 'profiles', '127.0.0.1-3000--usr_perm'));
            expect((await Fs.promises.stat(scratch.home)).mode & 0o777).to.equal(0o700);
            for (const entry of await walk(scratch.home)) {
                expect(entry.mode, entry.path).to.equal(entry.directory ? 0o700 : 0o600);
            }

            await Fs.promises.chmod(profile.dir, 0o755);
            await scratch.profile('usr_perm');
            expect((await Fs.promises.stat(profile.dir)).mode & 0o777).to.equal(0o700);
            expect(await Fs.promises.readFile(Path.join(profile.dir, 'profile.json'), 'utf8')).to.contain('"email": "usr_perm@example.com"');
        }
        finally {
            process.umask(umask);
        }
    });

    it('creates the home where $FAMILY_RECORDS_DESKTOP_HOME says', async () => {

        const nested = Path.join(scratch.home, 'nested', 'home');
        setEnv({ FAMILY_RECORDS_DESKTOP_HOME: nested });
        try {
            expect(desktopHome()).to.equal(nested);
            expect((await Fs.promises.stat(nested)).mode & 0o777).to.equal(0o700);
        }
        finally {
            setEnv({ FAMILY_RECORDS_DESKTOP_HOME: scratch.home });
        }
    });

    it('finds the current profile: by name, by $FAMILY_RECORDS_DESKTOP_PROFILE, by the current file, else the only one', async () => {

        for (const profile of await listProfiles()) {
            await removeProfile(profile.name);
        }

        expect(await currentProfile()).to.be.undefined();
        const first = await scratch.profile('usr_first');
        expect((await currentProfile())?.name).to.equal(first.name);

        const second = await scratch.profile('usr_second');
        expect(await currentProfile()).to.be.undefined();
        expect((await listProfiles()).map((profile) => profile.name)).to.equal([first.name, second.name]);
        expect(await currentProfile(second.name)).to.equal(second);
        expect(await currentProfile('127.0.0.1-3000--usr_nobody')).to.be.undefined();
        await expect(currentProfile('../escape')).to.reject(/Invalid profile name/);

        await setCurrentProfile(second.name);
        expect((await currentProfile())?.name).to.equal(second.name);
        expect((await Fs.promises.stat(Path.join(scratch.home, 'current'))).mode & 0o777).to.equal(0o600);
        await expect(setCurrentProfile('127.0.0.1-3000--usr_nobody')).to.reject(/No profile named/);

        setEnv({ FAMILY_RECORDS_DESKTOP_PROFILE: first.name });
        try {
            expect((await currentProfile())?.name).to.equal(first.name);
        }
        finally {
            setEnv({ FAMILY_RECORDS_DESKTOP_PROFILE: undefined });
        }

        await removeProfile(second.name);
        await expect(Fs.promises.stat(second.dir)).to.reject(/ENOENT/);
        await expect(Fs.promises.stat(Path.join(scratch.home, 'current'))).to.reject(/ENOENT/);
        expect((await currentProfile())?.name).to.equal(first.name);
    });
});
