import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';
import * as Lab from '@hapi/lab';

import { connectedDevice, familyMember, getMe } from '../../helpers/devices';
import { familyWithKey } from '../../helpers/server';
import { expectSuccess } from '../../gateway/requests';
import { cliTestTimeout, runCli, runCliJson, testServerWithCliEnvironment } from './run';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('family-records family suspend-messaging and restore-messaging', { timeout: cliTestTimeout }, () => {

    let server: Server;
    let env: NodeJS.ProcessEnv;

    before(async () => {

        ({ server, env } = await testServerWithCliEnvironment());
    });

    after(() => server.stop());

    // Each CLI run starts a process that opens the database: a few seconds each on a busy machine.
    it('suspends a family\'s messaging on the running server, keeps the first suspension, restores it, and audits each change once', { timeout: 120_000 }, async () => {

        const user = await familyMember(server);
        const id = user.family_long_id!;
        const device = await connectedDevice(server, user);
        expect((await getMe(server, device.access_token)).statusCode).to.equal(200);

        const suspended = await runCliJson(['family', 'suspend-messaging', id, '--reason', 'Reported spam'], env);
        expect(suspended).to.include({ family_long_id: id, changed: true, messaging_suspended: true, messaging_suspension_reason: 'Reported spam', messaging_suspended_by: 'cli', api_suspended: false });
        expect(suspended.messaging_suspended_at).to.be.a.string();
        expect((await getMe(server, device.access_token)).result).to.include({ code: 'messaging_suspended' });

        const again = await runCli(['family', 'suspend-messaging', id, '--reason', 'Another'], env);
        expect(again.exitCode).to.equal(0);
        expect(again.stdout).to.startWith(`Family ${id} "Device family" had its messaging already suspended since ${suspended.messaging_suspended_at} by an operator (CLI): Reported spam\n`);
        expect(again.stdout).to.contain(`family-records family restore-messaging ${id}, then family-records family suspend-messaging ${id} --reason TEXT`);

        const restored = await runCli(['family', 'restore-messaging', id], env);
        expect(restored.exitCode).to.equal(0);
        expect(restored.stdout).to.equal(`Restored messaging of family ${id} "Device family"\n  plan: family\n  API:  not enabled\n  messaging: on\n`);
        expect((await getMe(server, device.access_token)).statusCode).to.equal(200);
        expect(await runCliJson(['family', 'restore-messaging', id], env)).to.include({ changed: false, messaging_suspended: false, messaging_suspended_at: null });

        const events = await server.app.services.models.AuditEvent.findAll({ where: { family_long_id: id }, order: [['id', 'ASC']] });
        expect(events.map((event) => [event.action, event.target, event.detail, event.actor_id])).to.equal([
            ['family.suspend_messaging', id, 'Reported spam', 'cli'],
            ['family.restore_messaging', id, null, 'cli']
        ]);
    });

    it('leaves the family\'s API keys working while its messaging is suspended, and says so in --help', async () => {

        const family = await familyWithKey(server);
        expect(await runCliJson(['family', 'suspend-messaging', family.familyLongId], env)).to.include({ messaging_suspension_reason: 'Suspended by an operator' });
        expectSuccess(await family.inject('GET', '/api/v1/persons'));

        const help = await runCli(['family', 'suspend-messaging', '--help'], env);
        expect(help.exitCode).to.equal(0);
        expect(help.stdout).to.contain('family suspend-messaging ID [--reason TEXT] [--json]');
        expect(help.stdout).to.contain('family restore-messaging ID [--json]');
    });

    it('refuses an unknown family and a missing ID, changing nothing', async () => {

        const unknown = await runCli(['family', 'suspend-messaging', 'fam_doesnotexist0000000000000000000'], env);
        expect(unknown.exitCode).to.equal(1);
        expect(unknown.stderr).to.contain('No family fam_doesnotexist0000000000000000000.');

        const missing = await runCli(['family', 'restore-messaging'], env);
        expect(missing.exitCode).to.equal(2);
        expect(missing.stderr).to.contain('missing ID');
    });
});
