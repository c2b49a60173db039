import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';
import * as Lab from '@hapi/lab';

import { connectedDevice, desktopClient, familyMember, getMe, postForm } from '../helpers/devices';
import { runCli, runCliJson, testServerWithCliEnvironment } from './run';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('family-records device', () => {

    let server: Server;
    let env: NodeJS.ProcessEnv;

    before(async () => {

        ({ server, env } = await testServerWithCliEnvironment());
    });

    after(() => server.stop());

    // Each CLI run starts a process that opens the database: a few seconds each on a busy machine.
    it('lists a family\'s connected devices, then revokes one: the server refuses its tokens from the next request', { timeout: 90_000 }, async () => {

        const user = await familyMember(server);
        const device = await connectedDevice(server, user, { device_name: 'Kitchen laptop' });
        expect((await getMe(server, device.access_token)).statusCode).to.equal(200);

        const listed = await runCliJson(['device', 'list', '--family', user.family_long_id!, '--json'], env);
        expect(listed.devices).to.have.length(1);
        const [shown] = listed.devices;
        expect(shown).to.include({ user_id: user.id, user_email: user.email, family_long_id: user.family_long_id, client_id: desktopClient, device_name: 'Kitchen laptop', revoked_at: null });
        expect(shown.id).to.match(/^dev_/);

        const human = await runCli(['device', 'list', '--family', user.family_long_id!], env);
        expect(human.exitCode).to.equal(0);
        expect(human.stdout).to.include(`${shown.id}  "Kitchen laptop" (Family Records Desktop) of ${user.email}`);

        const revoked = await runCliJson(['device', 'revoke', shown.id, '--json'], env);
        expect(revoked).to.include({ id: shown.id, changed: true });
        expect((await getMe(server, device.access_token)).statusCode).to.equal(401);
        const refresh = await postForm(server, '/oauth/token', { grant_type: 'refresh_token', client_id: desktopClient, refresh_token: device.refresh_token });
        expect(refresh.result).to.include({ error: 'invalid_grant' });

        expect(await runCliJson(['device', 'revoke', shown.id, '--json'], env)).to.include({ changed: false });
    });

    it('refuses an unknown device and a missing --family', { timeout: 60_000 }, async () => {

        const unknown = await runCli(['device', 'revoke', 'dev_unknown'], env);
        expect(unknown.exitCode).to.not.equal(0);
        expect(unknown.stderr).to.include('No connected device dev_unknown.');

        const missing = await runCli(['device', 'list'], env);
        expect(missing.exitCode).to.not.equal(0);
        expect(missing.stderr).to.include('--family');
    });
});
