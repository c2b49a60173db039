import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';
import * as Lab from '@hapi/lab';

import { connectedDevice, familyMember, getMe } from '../../helpers/devices';
import { cliTestTimeout, runCliJson, testServerWithCliEnvironment } from './run';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('family-records user disable and user enable', { timeout: cliTestTimeout }, () => {

    let server: Server;
    let env: NodeJS.ProcessEnv;

    before(async () => {

        ({ server, env } = await testServerWithCliEnvironment());
    });

    after(() => server.stop());

    // Each CLI run starts a process that opens the database: a few seconds each on a busy machine.
    it('refuses a disabled user\'s devices from the next request, and accepts them again once enabled', { timeout: 90_000 }, async () => {

        const user = await familyMember(server);
        const device = await connectedDevice(server, user);

        expect(await runCliJson(['user', 'disable', user.id, '--json'], env)).to.include({ id: user.id, changed: true });
        const refused = await getMe(server, device.access_token);
        expect(refused.statusCode).to.equal(403);
        expect(refused.result).to.include({ code: 'account_disabled' });

        expect(await runCliJson(['user', 'enable', user.id, '--json'], env)).to.include({ id: user.id, disabled_at: null, changed: true });
        expect((await getMe(server, device.access_token)).statusCode).to.equal(200);

        // Done again, it changes nothing and records nothing more.
        expect(await runCliJson(['user', 'enable', user.id], env)).to.include({ changed: false });
        const events = await server.app.services.models.AuditEvent.findAll({ where: { target: user.id }, order: [['id', 'ASC']] });
        expect(events.map((event) => [event.action, event.detail, event.actor_id])).to.equal([['user.disable', user.email, 'cli'], ['user.enable', user.email, 'cli']]);
    });
});
