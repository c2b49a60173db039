import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';
import * as Lab from '@hapi/lab';

import { notAnnouncedExitCode } from '../../../lib/cli/change-of-access';
import { connectedDevice, familyMember, getMe } from '../../helpers/devices';
import { keptLog } from '../../helpers/kept-log';
import { familyWithKey, testRedisUrl, testServer } from '../../helpers/server';
import { tcpRelay, type TcpRelay } from '../../helpers/tcp-relay';
import { expectRefusal, expectSuccess } from '../../gateway/requests';
import { cliEnvironmentOf, runCli } from './run';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

/** Until the server's Redis client has connected again (node-redis retries up to every 3 s). */
async function reconnected(server: Server): Promise<void> {

    const deadline = Date.now() + 10_000;
    while (!server.app.services.redis!.isReady) {
        if (Date.now() > deadline) {
            throw new Error('the server did not reconnect to Redis within 10 s');
        }

        await new Promise((resolve) => setTimeout(resolve, 20));
    }
}

// Redis cut off by a relay in front of the shared test Redis: the server and the CLI both reach it through the relay.
describe('the CLI\'s changes of access while Redis is down', { skip: !testRedisUrl }, () => {

    let relay: TcpRelay;
    let server: Server;
    let env: NodeJS.ProcessEnv;

    before(async () => {

        const redisUrl = new URL(testRedisUrl!);
        relay = await tcpRelay(Number(redisUrl.port || 6379), redisUrl.hostname);
        // The outage this file makes is expected: its Redis errors are kept, not printed.
        const outageLog = keptLog([/^\[redis,error\] /, /^\[change-bus,error\] change events [\d, ]+ not announced: /]);
        server = await testServer({ log: outageLog.log, env: { REDIS_URL: `redis://127.0.0.1:${relay.port}`, REDIS_PREFIX: `${process.env.TEST_REDIS_PREFIX ?? 'fr-test:'}cli-outage-${Date.now()}:` } });
        env = cliEnvironmentOf(server);
    });

    after(async () => {

        await relay.restore();
        await server.stop();
        await relay.close();
    });

    it('saves a key\'s revocation, exits 3 saying what is left to do, and the key stops working during and after the outage', async () => {

        const family = await familyWithKey(server);
        expectSuccess(await family.inject('GET', '/api/v1/persons'));           // cached

        await relay.cut();
        const outcome = await runCli(['key', 'revoke', family.keyId, '--json'], env);
        expect(outcome.exitCode).to.equal(notAnnouncedExitCode);
        expect(JSON.parse(outcome.stdout)).to.include({ id: family.keyId, changed: true });
        expect(outcome.stderr).to.contain('warning: the change is saved in the database, but Redis did not answer');
        expect(outcome.stderr).to.contain('run the same command again');
        expect(outcome.stderr).to.not.contain('error: ');

        const { ApiKey, AuditEvent } = server.app.services.models;
        expect((await ApiKey.findByPk(family.keyId))!.revoked_at).to.be.a.date();
        expect(await AuditEvent.count({ where: { action: 'api_key.revoke', target: family.keyId } })).to.equal(1);
        expectRefusal(await family.inject('GET', '/api/v1/persons'), 401, 'invalid_key');

        await relay.restore();
        await reconnected(server);
        expectRefusal(await family.inject('GET', '/api/v1/persons'), 401, 'invalid_key');

        // Once Redis answers, the same command moves the epoch: exit 0, nothing else to change.
        const again = await runCli(['key', 'revoke', family.keyId, '--json'], env);
        expect(again.exitCode).to.equal(0);
        expect(JSON.parse(again.stdout)).to.include({ changed: false });
        expect(again.stderr).to.equal('');
    });

    it('refuses the key on an instance that never lost Redis too, once another instance is connected again', async () => {

        // An instance of the same deployment that reaches Redis directly: the outage is the relay's alone.
        const direct = await testServer({ shareWith: server, env: { REDIS_URL: testRedisUrl!, REDIS_PREFIX: server.app.services.config.redisPrefix } });
        try {
            const family = await familyWithKey(server);
            const onDirect = (key: string) => direct.inject({ method: 'GET', url: '/api/v1/persons', headers: { authorization: `Bearer ${key}` } });
            expectSuccess(await onDirect(family.key));                                   // cached there

            await relay.cut();
            expect((await runCli(['key', 'revoke', family.keyId], env)).exitCode).to.equal(notAnnouncedExitCode);
            expectRefusal(await family.inject('GET', '/api/v1/persons'), 401, 'invalid_key');

            await relay.restore();
            await reconnected(server);
            // The reconnected instance moves the epoch as it connects; the other sees it on its next request after that.
            const deadline = Date.now() + 2000;
            while ((await onDirect(family.key)).statusCode === 200 && Date.now() < deadline) {
                await new Promise((resolve) => setTimeout(resolve, 20));
            }

            expectRefusal(await onDirect(family.key), 401, 'invalid_key');
        }
        finally {
            await direct.stop();
        }
    });

    it('saves a family\'s suspension: its keys are refused during and after the outage', async () => {

        const family = await familyWithKey(server);
        expectSuccess(await family.inject('GET', '/api/v1/persons'));

        await relay.cut();
        const outcome = await runCli(['family', 'suspend', family.familyLongId, '--reason', 'Leaked key', '--json'], env);
        expect(outcome.exitCode).to.equal(notAnnouncedExitCode);
        expect(JSON.parse(outcome.stdout)).to.include({ api_suspended: true, api_suspension_reason: 'Leaked key', changed: true });
        expect(outcome.stderr).to.contain('warning: the change is saved in the database');
        expectRefusal(await family.inject('GET', '/api/v1/persons'), 403, 'family_suspended');

        await relay.restore();
        await reconnected(server);
        expectRefusal(await family.inject('GET', '/api/v1/persons'), 403, 'family_suspended');
    });

    it('saves a suspension of a family\'s messaging: its devices are refused during and after the outage', async () => {

        const user = await familyMember(server);
        const device = await connectedDevice(server, user);
        expect((await getMe(server, device.access_token)).statusCode).to.equal(200);

        await relay.cut();
        const outcome = await runCli(['family', 'suspend-messaging', user.family_long_id!, '--reason', 'Reported spam', '--json'], env);
        expect(outcome.exitCode).to.equal(notAnnouncedExitCode);
        expect(JSON.parse(outcome.stdout)).to.include({ messaging_suspended: true, messaging_suspension_reason: 'Reported spam', changed: true });
        expect(outcome.stderr).to.contain('warning: the change is saved in the database');
        expectRefusal(await getMe(server, device.access_token), 403, 'messaging_suspended');

        await relay.restore();
        await reconnected(server);
        expectRefusal(await getMe(server, device.access_token), 403, 'messaging_suspended');
    });
});
