import Crypto from 'crypto';
import Path from 'path';

import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';

import { LocalAuthEpoch, RedisAuthEpoch, type AuthEpoch } from '../../gateway/auth-epoch';
import { connectRedis, type RedisClient } from '../../lib/redis';
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

describe('LocalAuthEpoch.subscribe()', () => {

    it('tells of this process\'s bump at once, and once only', async () => {

        const epoch = new LocalAuthEpoch(Path.join(scratchDirectory(), 'auth-epoch'));
        const { moves, stop } = await countedMoves(epoch);
        await epoch.bump();
        expect(moves()).to.equal(1);

        // The marker file's poll sees the same move: it is not told twice.
        await new Promise((resolve) => setTimeout(resolve, 600));
        expect(moves()).to.equal(1);
        stop();
        await epoch.close();
    });

    it('tells of a bump by another process sharing the marker file (the CLI)', async () => {

        const marker = Path.join(scratchDirectory(), 'auth-epoch');
        const server = new LocalAuthEpoch(marker);
        const cli = new LocalAuthEpoch(marker);
        const { moves } = await countedMoves(server);

        await cli.bump();
        await until(() => moves() === 1, 'the marker file\'s change to be noticed');
        await server.close();
    });

    it('stops telling once unsubscribed', async () => {

        const epoch = new LocalAuthEpoch(Path.join(scratchDirectory(), 'auth-epoch'));
        const { moves, stop } = await countedMoves(epoch);
        stop();
        await epoch.bump();
        expect(moves()).to.equal(0);
    });
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

    async function instanceEpoch(prefix: string): Promise<RedisAuthEpoch> {

        const client = await connectRedis(testRedisUrl!, () => undefined);
        clients.push(client);
        const epoch = new RedisAuthEpoch(client, prefix, () => undefined);
        epochs.push(epoch);
        return epoch;
    }

    it('tells every instance of a bump by any of them', async () => {

        const [a, b] = [await instanceEpoch(prefix), await instanceEpoch(prefix)];
        const onA = await countedMoves(a);
        const onB = await countedMoves(b);

        await a.bump();
        await until(() => onA.moves() === 1 && onB.moves() === 1, 'both instances to hear of the move');
        expect(await b.current()).to.equal('1');
    });
});
