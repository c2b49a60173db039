import Net from 'net';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { receiverHost, TestReceiver } from './helpers/receiver';
import { familyWithEndpoint, receiverPolicies, scriptedResolver, stopReceiverAndServer, webhooksServer } from './helpers/setup';
import { SilentListener } from './helpers/silent-listener';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

/** A plain TCP listener on `host`: it takes connections and does what `handle` says with them (no TLS). */
async function tcpListener(host: string, port: number, handle: (socket: Net.Socket) => void): Promise<Net.Server> {

    const listener = Net.createServer(handle);
    await new Promise<void>((resolve) => listener.listen(port, host, resolve));
    return listener;
}

/**
 * A test server whose resolver answers receiver.test with whatever `answer` holds at the time, and counts its
 * calls. Its policy allows ::1 too, which lies in ::/3: the shipped policy refuses that beside the loopback range.
 */
async function serverResolvingTo(receiver: TestReceiver, answer: { addresses: string[]; lookups: number }): Promise<Server> {

    const scripted = scriptedResolver({ [receiverHost]: () => answer.addresses });
    return webhooksServer(receiver, {
        policiesDir: receiverPolicies(receiver, (policy) => {

            policy.destinations.blocked_cidrs = policy.destinations.blocked_cidrs.filter((cidr) => cidr !== '::/3');
        }),
        start: false,
        resolve: (hostname) => {

            ++answer.lookups;
            return scripted(hostname);
        }
    });
}

// The test policy's connect timeout is 2000 ms and its response timeout 1000 ms (receiverPolicies).
describe('send() to a host with several addresses', () => {

    let receiver: TestReceiver;
    let server: Server;
    const answer = { addresses: ['127.0.0.1'], lookups: 0 };

    before(async () => {

        receiver = await TestReceiver.start();
        server = await serverResolvingTo(receiver, answer);
    });

    after(() => stopReceiverAndServer({ receiver, server }));

    /** A test delivery to an endpoint at the receiver while receiver.test resolves to `addresses`. */
    async function pingResolvingTo(addresses: string[]) {

        const family = await familyWithEndpoint(server, receiver);
        answer.addresses = addresses;
        answer.lookups = 0;
        const received = receiver.received.length;
        const { outcome, delivery } = await server.plugins.webhooks.ping(family.familyLongId, family.endpointId);
        const { attempts } = await server.plugins.webhooks.getDelivery(family.familyLongId, family.endpointId, delivery.id);
        return { outcome, attempt: attempts[0], requests: receiver.received.slice(received), lookups: answer.lookups };
    }

    it('connects to the next address when the first refuses the connection, resolving the host once', async () => {

        // Nothing listens on 127.0.0.2 (the receiver listens on 127.0.0.1 only): the connection is refused.
        const { outcome, attempt, requests, lookups } = await pingResolvingTo(['127.0.0.2', '127.0.0.1']);
        expect(outcome).to.include({ delivered: true, address: '127.0.0.1' });
        expect(attempt.get({ plain: true })).to.include({ status_code: 204, error: null, address: '127.0.0.1' });
        expect(lookups).to.equal(1);
        expect(requests).to.have.length(1);
        expect(requests[0].headers.host).to.equal(`${receiverHost}:${receiver.port}`);
    });

    it('connects to the next address when the first does not take the connection within its share of the connect timeout', async () => {

        const silent = await SilentListener.start('127.0.0.3', receiver.port);
        try {
            const { outcome, attempt } = await pingResolvingTo(['127.0.0.3', '127.0.0.1']);
            expect(outcome).to.include({ delivered: true, address: '127.0.0.1' });
            // Half the connect timeout for the first of two addresses, and the time left for the second.
            expect(attempt.latency_ms).to.be.within(900, 1900);
        }
        finally {
            await silent.close();
        }
    });

    it('gives up when no address takes the connection, within the connect timeout shared among them, naming what each did', async () => {

        const silent = [await SilentListener.start('127.0.0.3', receiver.port), await SilentListener.start('127.0.0.4', receiver.port)];
        try {
            const { outcome, attempt, requests } = await pingResolvingTo(['127.0.0.2', '127.0.0.3', '127.0.0.4']);
            expect(outcome).to.include({ delivered: false, address: '127.0.0.4' });
            // The refusal leaves the whole timeout to the two others: about half each.
            const [, first, second] = /^127\.0\.0\.2: connection refused \(ECONNREFUSED\); 127\.0\.0\.3: could not connect within (\d+) ms; 127\.0\.0\.4: could not connect within (\d+) ms$/.exec(attempt.error!)!;
            expect(Number(first)).to.be.within(950, 1000);
            expect(Number(second)).to.be.within(950, 1000);
            expect(attempt.get({ plain: true })).to.include({ status_code: null, address: '127.0.0.4' });
            expect(attempt.latency_ms).to.be.within(1900, 2500);
            expect(requests).to.have.length(0);
        }
        finally {
            await Promise.all(silent.map((listener) => listener.close()));
        }
    });

    it('connects over IPv4 when the IPv6 address refuses', async () => {

        // The receiver listens on 127.0.0.1 only.
        const { outcome, requests } = await pingResolvingTo(['::1', '127.0.0.1']);
        expect(outcome).to.include({ delivered: true, address: '127.0.0.1' });
        expect(requests).to.have.length(1);
    });

    it('keeps the words of a single address that refuses the connection', async () => {

        const { outcome, attempt } = await pingResolvingTo(['127.0.0.2']);
        expect(outcome).to.include({ delivered: false, address: '127.0.0.2' });
        expect(attempt.error).to.equal('connection refused (ECONNREFUSED)');
    });

    it('tries no other address once a connection is made, even when TLS then fails', async () => {

        // Reset on the TLS ClientHello, which the sender writes once connected.
        const resetting = await tcpListener('127.0.0.2', receiver.port, (socket) => socket.once('data', () => socket.resetAndDestroy()));
        try {
            const { outcome, attempt, requests } = await pingResolvingTo(['127.0.0.2', '127.0.0.1']);
            expect(outcome).to.include({ delivered: false, address: '127.0.0.2' });
            expect(attempt.error).to.equal('connection reset (ECONNRESET)');
            expect(requests).to.have.length(0);
        }
        finally {
            await new Promise((resolve) => resetting.close(resolve));
        }
    });

    it('tries no other address once a connection is made, when the TLS handshake never finishes: the connect timeout ends it', async () => {

        const sockets: Net.Socket[] = [];
        const mute = await tcpListener('127.0.0.2', receiver.port, (socket) => sockets.push(socket));
        try {
            const { outcome, attempt, requests } = await pingResolvingTo(['127.0.0.2', '127.0.0.1']);
            expect(outcome).to.include({ delivered: false, address: '127.0.0.2' });
            expect(attempt.error).to.equal('could not connect within 2000 ms (the TLS handshake did not finish)');
            expect(attempt.latency_ms).to.be.within(1900, 2500);
            expect(requests).to.have.length(0);
        }
        finally {
            sockets.forEach((socket) => socket.destroy());
            await new Promise((resolve) => mute.close(resolve));
        }
    });

    it('tries no other address after a response, whatever it says', async () => {

        const second = await tcpListener('127.0.0.4', receiver.port, (socket) => socket.destroy());
        let reached = false;
        second.on('connection', () => {

            reached = true;
        });
        try {
            receiver.respondWith((response) => response.writeHead(503).end());
            const { outcome, attempt } = await pingResolvingTo(['127.0.0.1', '127.0.0.4']);
            expect(outcome).to.include({ delivered: false, address: '127.0.0.1' });
            expect(attempt.status_code).to.equal(503);
            expect(reached).to.be.false();
        }
        finally {
            await new Promise((resolve) => second.close(resolve));
        }
    });
});

describe('send() to a host with IPv6 and IPv4 addresses, the receiver on ::1', () => {

    let receiver: TestReceiver;
    let server: Server;
    const answer = { addresses: ['::1'], lookups: 0 };

    before(async () => {

        receiver = await TestReceiver.start('::1');
        server = await serverResolvingTo(receiver, answer);
    });

    after(() => stopReceiverAndServer({ receiver, server }));

    it('connects over IPv6 when the IPv4 address refuses', async () => {

        const family = await familyWithEndpoint(server, receiver);
        answer.addresses = ['127.0.0.2', '::1'];
        const { outcome } = await server.plugins.webhooks.ping(family.familyLongId, family.endpointId);
        expect(outcome).to.include({ delivered: true, address: '::1' });
        expect(receiver.received).to.have.length(1);
        expect(receiver.received[0].headers.host).to.equal(`${receiverHost}:${receiver.port}`);
    });
});
