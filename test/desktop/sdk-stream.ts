import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';
import { followStream, revokeToken, type Change, type MessagingClient, type StreamOptions, type SyncReset } from 'family-records-desktop';

import { encodeCursor } from '../../lib/messaging/cursors';
import { connectedFamily, messagingRequest } from '../helpers/messaging-api';
import { freePort } from '../helpers/ports';
import { testServer, testVariant } from '../helpers/server';
import { tcpRelay, type TcpRelay } from '../helpers/tcp-relay';
import { Recorder, sdkClient } from './sdk-fixtures';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe(`the desktop SDK's recovery stream, resumed by itself (${testVariant})`, () => {

    let server: Server;
    let relay: TcpRelay;
    let baseUrl: string;

    before(async () => {

        // The client reaches the service through a relay a test can cut; the service names the relay's address.
        const port = await freePort();
        relay = await tcpRelay(port);
        baseUrl = `http://127.0.0.1:${relay.port}`;
        server = await testServer({ env: { PORT: String(port), HOST: '127.0.0.1', PUBLIC_BASE_URL: baseUrl } });
        await server.start();
    });

    after(async () => {

        await relay.close();
        await server.stop();
    });

    /** Ann and Ben in a direct conversation: Ann writes through the service, Ben follows the stream with the SDK. */
    async function conversationOfTwo() {

        const { users, tokens } = await connectedFamily(server, 2);
        const start = await messagingRequest(server, tokens[0], 'POST', '/conversations', { kind: 'direct', user_id: users[1].id });
        const conversationId = (start.result as any).data.id as string;
        const send = async (body: string) => {

            const sent = await messagingRequest(server, tokens[0], 'POST', `/conversations/${conversationId}/messages`, { body }, { 'idempotency-key': body });
            expect(sent.statusCode).to.equal(201);
        };

        const ben = await sdkClient(server, baseUrl, users[1]);
        return { send, ben };
    }

    /** Follows the stream as `client`, recording what it hands over. */
    function follow(client: MessagingClient, options: Partial<StreamOptions> = {}) {

        const controller = new AbortController();
        const changes = new Recorder<Change>();
        const readies = new Recorder<string>();
        const resets = new Recorder<SyncReset>();
        const states = new Recorder<string>();
        const ended = followStream(client, {
            signal: controller.signal,
            backoff: { initialMs: 20, maxMs: 200 },
            onChange: (change) => changes.push(change),
            onReset: (reset) => resets.push(reset),
            onReady: (cursor) => readies.push(cursor),
            onState: (state) => states.push(state),
            ...options
        });
        const bodies = () => changes.items.filter((change) => change.kind === 'message').map((change) => change.record.body);
        return { changes, readies, resets, states, ended, bodies, stop: () => controller.abort() };
    }

    it('hands over live changes, and after a cut connection resumes with Last-Event-ID: what was sent meanwhile, nothing twice', async () => {

        const { send, ben } = await conversationOfTwo();
        const stream = follow(ben.client);
        await stream.readies.until((readies) => readies.length === 1);
        await send('live');
        await stream.changes.until(() => stream.bodies().includes('live'));
        const lastSeen = stream.changes.items.at(-1)!.cursor;

        await relay.cut();
        await stream.states.until((states) => states.includes('offline'));
        await send('missed 1');
        await send('missed 2');
        await relay.restore();
        await stream.readies.until((readies) => readies.length === 2);
        // The resumed stream starts where the last change handled left off.
        expect(stream.readies.items[1]).to.equal(lastSeen);
        await send('after');
        await stream.changes.until(() => stream.bodies().includes('after'));

        expect(stream.bodies()).to.equal(['live', 'missed 1', 'missed 2', 'after']);
        const cursors = stream.changes.items.map((change) => change.cursor);
        expect(new Set(cursors).size).to.equal(cursors.length);
        expect(stream.states.items).to.include(['connecting', 'open', 'offline']);

        stream.stop();
        expect(await stream.ended).to.include({ code: 'aborted' });
    });

    it('hands a cursor the service never had to onReset, then carries on live after the reset\'s cursor', async () => {

        const { send, ben } = await conversationOfTwo();
        const stream = follow(ben.client, { cursor: encodeCursor({ time: new Date(), tiebreak: '999999999999' }) });
        const [reset] = await stream.resets.until((resets) => resets.length === 1);
        expect(reset).to.include({ reset: true, reason: 'unknown' });
        await send('after the reset');
        await stream.changes.until(() => stream.bodies().includes('after the reset'));
        expect(stream.readies.items).to.equal([]);
        stream.stop();
        await stream.ended;
    });

    it('resolves with invalid_token once the device is disconnected', async () => {

        const { ben } = await conversationOfTwo();
        const stream = follow(ben.client);
        await stream.readies.until((readies) => readies.length === 1);
        await revokeToken(ben.metadata, ben.storage.tokens!.refresh_token);
        expect((await stream.ended).code).to.equal('invalid_token');
    });
});
