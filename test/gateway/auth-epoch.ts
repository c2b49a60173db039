import ChildProcess from 'child_process';
import Crypto from 'crypto';
import Path from 'path';

import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';

import { RedisAuthEpoch, type AuthEpoch } from '../../gateway/auth-epoch';
import { LocalAuthEpoch } from '../../gateway/local-auth-epoch';
import { connectRedis, type RedisClient } from '../../lib/redis';
import { RedisOutage } from '../../lib/redis-outage';
import { deleteRedisKeys } from '../helpers/scratch-services';
import { scratchDirectory, testRedisUrl } from '../helpers/server';
import { until } from '../plugins/stream/client';

export const lab = Lab.script();
const { describe, it, after } = lab;

/** Counts the moves `epoch` tells its subscriber about. */
async function countedMoves(epoch: AuthEpoch): Promise<{ moves: () => number; stop: () => void }> {

    let moves = 0;
    const stop = await epoch.subscribe(() => ++moves);
    return { moves: () => moves, stop };
}

/** Bumps the epoch of `marker` from another process, as the operator CLI does, and resolves once that process has exited. */
function bumpFromAnotherProcess(marker: string): Promise<void> {

    const script = `new (require(${JSON.stringify(require.resolve('../../gateway/local-auth-epoch'))}).LocalAuthEpoch)(${JSON.stringify(marker)}).bump()`;
    return new Promise((resolve, reject) => {

        ChildProcess.execFile(process.execPath, ['-e', script], (error) => (error ? reject(error) : resolve()));
    });
}

describe('LocalAuthEpoch', () => {

    const watched = [true, false];

    for (const watch of watched) {
        describe(watch ? 'watching its marker (Linux)' : 'reading its marker at every call (elsewhere)', () => {

            const open = (marker = Path.join(scratchDirectory(), 'epoch', 'auth-epoch')) => new LocalAuthEpoch(marker, { watch });

            it('moves at once after another process bumped it, before anything else is awaited', async () => {

                const marker = Path.join(scratchDirectory(), 'epoch', 'auth-epoch');
                const epoch = open(marker);
                const before = epoch.current();
                expect(epoch.current()).to.equal(before);

                // The child's exit reaches this process after its change of the marker: the next read must see the change.
                await bumpFromAnotherProcess(marker);
                expect(epoch.current()).to.not.equal(before);
                await epoch.close();
            });

            it('moves at once for every instance of this process sharing the marker', async () => {

                const marker = Path.join(scratchDirectory(), 'epoch', 'auth-epoch');
                const [a, b] = [open(marker), open(marker)];
                const before = b.current();
                await a.bump();
                expect(b.current()).to.not.equal(before);
                await a.close();

                // Closing one instance leaves the other's view of the marker working.
                const middle = b.current();
                await bumpFromAnotherProcess(marker);
                expect(b.current()).to.not.equal(middle);
                await b.close();
            });

            it('tells a subscriber of this process\'s bump at once, and once only', async () => {

                const epoch = open();
                const { moves, stop } = await countedMoves(epoch);
                await epoch.bump();
                expect(moves()).to.equal(1);

                // The watch (or the poll) sees the same move: it is not told twice.
                await new Promise((resolve) => setTimeout(resolve, 600));
                expect(moves()).to.equal(1);
                stop();
                await epoch.close();
            });

            it('tells a subscriber of a bump by another process sharing the marker (the CLI)', async () => {

                const marker = Path.join(scratchDirectory(), 'epoch', 'auth-epoch');
                const epoch = open(marker);
                const { moves } = await countedMoves(epoch);

                await bumpFromAnotherProcess(marker);
                await until(() => moves() === 1, 'the marker file\'s change to be noticed');
                await epoch.close();
            });

            it('stops telling once unsubscribed', async () => {

                const epoch = open();
                const { moves, stop } = await countedMoves(epoch);
                stop();
                await epoch.bump();
                expect(moves()).to.equal(0);
                await epoch.close();
            });
        });
    }
});

describe('RedisAuthEpoch.subscribe()', { skip: !testRedisUrl }, () => {

    const clients: RedisClient[] = [];
    const epochs: RedisAuthEpoch[] = [];
    const prefix = `fr-epoch-${Crypto.randomBytes(4).toString('hex')}:`;

    after(async () => {

        await Promise.all(epochs.map((epoch) => epoch.close()));
        await Promise.all(clients.map((client) => client.quit()));
        await deleteRedisKeys(testRedisUrl!, prefix);
    });

    async function instanceEpoch(keyPrefix: string): Promise<RedisAuthEpoch> {

        const client = await connectRedis(testRedisUrl!, () => undefined);
        clients.push(client);
        const epoch = new RedisAuthEpoch(client, keyPrefix, () => undefined, new RedisOutage(client, () => undefined));
        epochs.push(epoch);
        return epoch;
    }

    it('tells every instance of a bump by any of them', async () => {

        const [a, b] = [await instanceEpoch(prefix), await instanceEpoch(prefix)];
        const onA = await countedMoves(a);
        const onB = await countedMoves(b);

        const before = await b.current();
        await a.bump();
        await until(() => onA.moves() === 1 && onB.moves() === 1, 'both instances to hear of the move');
        expect(await b.current()).to.not.equal(before);
        expect(await a.current()).to.equal(await b.current());         // neither lost its connection: the same epoch
    });
});
