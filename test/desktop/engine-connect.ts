import Fs from 'fs';
import Path from 'path';

import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';
import { DesktopClient, NotConnectedError } from 'family-records-desktop';

import { connectDesktopClient, desktopHome, desktopService, type DesktopService } from '../helpers/desktop-service';
import { desktopClient, postForm } from '../helpers/devices';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('desktop engine: connecting and disconnecting', () => {

    let service: DesktopService;

    before(async () => {

        service = await desktopService();
    });

    after(() => service.stop());

    /** What the token endpoint answers to a refresh with `refreshToken`. */
    const refreshWith = (client: DesktopClient, refreshToken: string) => postForm(service.server, new URL(client.metadata.token_endpoint).pathname,
        { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: desktopClient });

    it('connects through the device flow: a profile of the account, its keys in the secret store, the current profile that open() finds offline', async () => {

        const member = await service.member();
        const client = await connectDesktopClient(service, member, { deviceName: 'Kitchen laptop' });
        expect(client.profile.email).to.equal(member.email);
        expect(client.profile.userId).to.equal(member.user.id);
        expect(client.profile.familyName).to.equal('Desktop family');
        expect(client.profile.deviceName).to.equal('Kitchen laptop');
        expect(await client.secrets.get('cache-key')).to.exist();
        expect(await client.secrets.get('refresh-token')).to.match(/^frr_/);
        const status = await client.status();
        expect(status).to.include({ outbox: 0, openConflicts: 0, lastSyncAt: null });
        expect(status.keyStore.kind).to.equal('file');
        expect((await client.api.me()).user.id).to.equal(member.user.id);
        await client.close();

        await service.goOffline();
        try {
            const reopened = await DesktopClient.open();
            expect(reopened.profile.name).to.equal(client.profile.name);
            expect(await reopened.store.outboxItems()).to.equal([]);
            await reopened.close();
        }
        finally {
            await service.goOnline();
        }
    });

    it('refuses to open without a connected profile, with a clear NotConnectedError', async () => {

        process.env.FAMILY_RECORDS_DESKTOP_HOME = desktopHome();
        const error = await expect(DesktopClient.open()).to.reject(NotConnectedError);
        expect(error.message).to.contain('connect');
    });

    it('disconnects: the service refuses the refresh token after, and the keys and cache are gone', async () => {

        const member = await service.member();
        const client = await connectDesktopClient(service, member);
        await client.sync();
        const refreshToken = (await client.secrets.get('refresh-token'))!;
        const profile = client.profile;
        expect(await client.disconnect()).to.equal({ revoked: true });

        const refused = await refreshWith(client, refreshToken);
        expect(refused.statusCode).to.equal(400);
        expect(refused.result).to.include({ error: 'invalid_grant' });
        expect(await client.secrets.get('refresh-token')).to.not.exist();
        expect(await client.secrets.get('cache-key')).to.not.exist();
        await expect(DesktopClient.open({ profile: profile.name })).to.reject(NotConnectedError);
        expect(Fs.existsSync(profile.dir)).to.be.true();

        // Connected again, the profile starts with a new key and an empty store.
        let approval: Promise<void> = Promise.resolve();
        const again = await DesktopClient.connect(service.baseUrl, { onCode: (code) => (approval = service.approve(code.user_code, member.user)) });
        await approval;
        expect(again.profile.name).to.equal(profile.name);
        expect(await again.store.conversations()).to.equal([]);
        expect((await again.api.me()).user.id).to.equal(member.user.id);
        await again.close();
    });

    it('disconnects offline: the revocation waits in a private file, and the next start of the client revokes it', async () => {

        const client = await connectDesktopClient(service, await service.member());
        const refreshToken = (await client.secrets.get('refresh-token'))!;
        const profile = client.profile;
        await service.goOffline();
        try {
            expect(await client.disconnect({ forget: true })).to.equal({ revoked: false });
        }
        finally {
            await service.goOnline();
        }

        expect(Fs.existsSync(profile.dir)).to.be.false();
        const pendingFile = Path.join(process.env.FAMILY_RECORDS_DESKTOP_HOME!, 'pending-revocations.json');
        expect(Fs.statSync(pendingFile).mode & 0o777).to.equal(0o600);
        expect(Fs.readFileSync(pendingFile, 'utf8')).to.contain(refreshToken);

        await expect(DesktopClient.open()).to.reject(NotConnectedError);
        expect(JSON.parse(Fs.readFileSync(pendingFile, 'utf8'))).to.equal([]);
        expect((await refreshWith(client, refreshToken)).result).to.include({ error: 'invalid_grant' });
    });
});
