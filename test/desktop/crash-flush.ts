import Fs from 'fs';
import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Request, ResponseToolkit, Server } from '@hapi/hapi';

import { approveDeviceRequest } from '../../lib/accounts/devices';
import { createFamily } from '../../lib/accounts/families';
import { createGroup, startDirectConversation } from '../../lib/messaging/conversations';
import { actorOf, bodiesOnServer, connectCli, DesktopCli, eventually, finished, restartableService, type RestartableService } from '../helpers/desktop-e2e';
import { siteAccount } from '../plugins/site/client';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

/*
 * The outbox survives the client dying at any point of a flush: `sync` processes are killed with SIGKILL while they
 * send, each at a point the service picks as it serves them (before the handler of the k-th outbox request: nothing
 * of it applied yet, or as its answer leaves: applied, but the client never learns it), and started again each time.
 * At the end every message is on the service exactly once, in the order written, per conversation.
 */

const texts = 24;
const kills = 6;

/** Where the service kills the flushing client: the k-th outbox request since the client started, and at which step. */
interface KillPoint {
    child: ReturnType<DesktopCli['spawn']>;
    request: number;
    at: 'before-handler' | 'before-answer';
    seen: number;
    killed: boolean;
}

function isOutboxPost(request: Request): boolean {

    return request.method === 'post' && request.path === '/messaging/v1/outbox';
}

describe('a flush killed at random points', { timeout: 150_000 }, () => {

    let service: RestartableService;
    let armed: KillPoint | undefined;

    async function kill(point: KillPoint): Promise<void> {

        if (point.child.exitCode === null && point.child.signalCode === null) {
            const exited = new Promise((resolve) => point.child.once('exit', resolve));
            point.child.kill('SIGKILL');
            await exited;
        }

        point.killed = true;
    }

    function killHooks(server: Server): void {

        server.ext('onPreHandler', async (request: Request, h: ResponseToolkit) => {

            if (armed && isOutboxPost(request)) {
                const index = ++armed.seen;
                (request.app as { outboxIndex?: number }).outboxIndex = index;
                if (index === armed.request && armed.at === 'before-handler') {
                    await kill(armed);
                }
            }

            return h.continue;
        });
        server.ext('onPreResponse', async (request: Request, h: ResponseToolkit) => {

            if (armed && isOutboxPost(request) && (request.app as { outboxIndex?: number }).outboxIndex === armed.request && armed.at === 'before-answer') {
                await kill(armed);
            }

            return h.continue;
        });
    }

    before(async () => {

        service = await restartableService();
        service.onEveryInstance(killHooks);
    });

    after(async () => {

        await service?.stop();
    });

    it('sends every text exactly once, in order per conversation, after the clients were killed mid-flush', async () => {

        const { server } = service;
        const family = await createFamily(server.app.services.accounts, { name: 'Crash family', plan: 'family' });
        const [alice, bob, carol] = await Promise.all(['manager', 'member', 'member'].map((role) => siteAccount(server, { role: role as 'manager' | 'member', familyLongId: family.family_long_id })));
        const direct = (await startDirectConversation(server.app.services.messaging, actorOf(alice.user), bob.user.id)).conversation;
        const group = await createGroup(server.app.services.messaging, actorOf(alice.user), 'Crash group', [bob.user.id, carol.user.id]);

        const cli = new DesktopCli();
        const connected = await connectCli(cli, service.baseUrl, (userCode) => approveDeviceRequest(server.app.services.accounts, userCode, alice.user));
        expect(connected.code, connected.stderr).to.equal(0);
        expect((await cli.run(['sync'])).code).to.equal(0);

        // Written while the service is down: each `send` keeps its text in the outbox and says so (exit 3).
        await service.stop();
        const written = new Map<string, string[]>([[direct.id, []], [group.id, []]]);
        for (let index = 0; index < texts; ++index) {
            const conversationId = Math.random() < 0.5 ? direct.id : group.id;
            const body = `crash-test text ${index}`;
            const sent = await cli.run(['send', conversationId, body]);
            expect(sent.code, sent.stderr).to.equal(3);
            written.get(conversationId)!.push(body);
        }

        const queued = await cli.json<{ items: Array<{ body: string }> }>(['outbox']);
        expect(queued.items.map((item) => item.body)).to.equal([...Array(texts).keys()].map((index) => `crash-test text ${index}`));

        await service.start();
        const onServer = async () => (await bodiesOnServer(service.server, direct.id)).length + (await bodiesOnServer(service.server, group.id)).length;
        const lockFile = Path.join(cli.home, 'profiles');
        let killed = 0;
        let runs = 0;
        while (killed < kills && await onServer() < texts) {
            ++runs;
            const child = cli.spawn(['sync']);
            const point: KillPoint = { child, request: 1 + Math.floor(Math.random() * 3), at: Math.random() < 0.5 ? 'before-handler' : 'before-answer', seen: 0, killed: false };
            armed = point;
            const run = await finished(child);
            armed = undefined;
            if (point.killed) {
                expect(run.signal).to.equal('SIGKILL');
                ++killed;
                continue;
            }

            // Not killed: the flush ended before its k-th request, or it found the outbox locked by a killed one
            // (the lock goes stale) and left the work to it.
            expect(run.code, run.stderr).to.equal(0);
            if (await onServer() < texts) {
                await eventually(() => !lockHeld(lockFile));
            }
        }

        expect(killed).to.be.above(3);
        await eventually(() => !lockHeld(lockFile));
        const last = await cli.run(['sync']);
        expect(last.code, last.stderr).to.equal(0);
        expect((await cli.json<{ items: unknown[] }>(['outbox'])).items).to.equal([]);
        expect(await bodiesOnServer(service.server, direct.id)).to.equal(written.get(direct.id)!);
        expect(await bodiesOnServer(service.server, group.id)).to.equal(written.get(group.id)!);
        expect(runs).to.be.at.least(killed);
    });
});

/** Whether a profile's outbox lock (proper-lockfile's `outbox.lock` directory) is there and fresh. */
function lockHeld(profilesDir: string): boolean {

    for (const profile of Fs.readdirSync(profilesDir)) {
        const lock = Path.join(profilesDir, profile, 'outbox.lock');
        if (Fs.existsSync(lock) && Date.now() - Fs.statSync(lock).mtimeMs < 10_000) {
            return true;
        }
    }

    return false;
}
