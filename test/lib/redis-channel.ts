import Crypto from 'crypto';
import { setTimeout as sleep } from 'timers/promises';

import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';
import { createClient } from 'redis';

import { connectRedis, type RedisClient } from '../../lib/redis';
import { RedisChannel } from '../../lib/redis-channel';
import { freePort } from '../helpers/ports';
import { testRedisUrl } from '../helpers/server';
import { until } from '../plugins/stream/client';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

const ignore = () => undefined;

/** The sockets and timers this process holds, by kind. */
function socketsAndTimers(): string[] {

    return process.getActiveResourcesInfo().filter((kind) => kind === 'TCPSocketWrap' || kind === 'Timeout').sort();
}

describe('RedisChannel', () => {

    it('close() stops a subscriber that cannot connect, and the pending listen() fails instead of waiting for ever', { timeout: 5000 }, async () => {

        // Retrying for ever, as connectRedis()'s client (and so its duplicates) does once connected.
        const client = createClient({ url: `redis://127.0.0.1:${await freePort()}`, socket: { reconnectStrategy: () => 50 } });
        const held = socketsAndTimers();
        const channel = new RedisChannel(client, 'fr-test-unreachable', ignore, { message: ignore, reconnected: ignore });
        const listening = channel.listen();
        await sleep(200);                       // a few refused attempts

        await channel.close();
        await expect(listening).to.reject('fr-test-unreachable: closed before subscribing');
        expect(socketsAndTimers()).to.equal(held);
    });

    it('close() while the subscriber\'s TCP connect is in flight leaves no connection open', { skip: !testRedisUrl }, async () => {

        const client = await connectRedis(testRedisUrl!, ignore);
        try {
            const held = socketsAndTimers();
            const channel = new RedisChannel(client, 'fr-test-closed-while-connecting', ignore, { message: ignore, reconnected: ignore });
            const listening = channel.listen();         // the subscriber's connect has started, not finished
            const refused = expect(listening).to.reject('fr-test-closed-while-connecting: closed before subscribing');
            await channel.close();
            await refused;
            await sleep(100);                           // long enough for a connect to 127.0.0.1 to finish
            expect(socketsAndTimers()).to.equal(held);
        }
        finally {
            await client.quit();
        }
    });

    describe('on a Redis that refuses the subscription', { skip: !testRedisUrl }, () => {

        // A Redis user with every command but no channel: its SUBSCRIBE is refused (NOPERM), as a deployment's
        // user without the channel's permission would be.
        const user = `fr-test-${Crypto.randomBytes(4).toString('hex')}`;
        const password = Crypto.randomBytes(12).toString('hex');
        let admin: RedisClient;
        let client: RedisClient;

        before(async () => {

            admin = await connectRedis(testRedisUrl!, ignore);
            await admin.sendCommand(['ACL', 'SETUSER', user, 'reset', 'on', `>${password}`, '~*', 'resetchannels', '+@all']);
            const url = new URL(testRedisUrl!);
            url.username = user;
            url.password = password;
            client = await connectRedis(url.toString(), ignore);
        });

        after(async () => {

            await client.quit();
            await admin.sendCommand(['ACL', 'DELUSER', user]);
            await admin.quit();
        });

        /** Waits (two seconds at most) until Redis lists `count` connections of the user. */
        async function expectConnections(count: number): Promise<void> {

            const deadline = Date.now() + 2000;
            let listed = await connections();
            while (listed !== count && Date.now() < deadline) {
                await sleep(20);
                listed = await connections();
            }

            expect(listed).to.equal(count);
        }

        async function connections(): Promise<number> {

            const list = await admin.sendCommand(['CLIENT', 'LIST']) as string;
            return list.split('\n').filter((line) => line.includes(` user=${user} `)).length;
        }

        it('closes the connection a refused listen() opened, and listens at a later listen() once allowed', async () => {

            const messages: string[] = [];
            const channel = new RedisChannel(client, `${user}:channel`, ignore, { message: (text) => messages.push(text), reconnected: ignore });
            await expectConnections(1);         // the client's own

            await expect(channel.listen()).to.reject(/^NOPERM/);
            await expectConnections(1);
            await expect(channel.listen()).to.reject(/^NOPERM/);
            await expectConnections(1);

            await admin.sendCommand(['ACL', 'SETUSER', user, 'allchannels']);
            await channel.listen();
            await expectConnections(2);
            await channel.publish('after the refusals');
            await until(() => messages.length === 1, 'the message');
            expect(messages).to.equal(['after the refusals']);

            await channel.close();
            await expectConnections(1);
        });
    });
});
