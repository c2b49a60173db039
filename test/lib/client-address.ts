import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import Hapi from '@hapi/hapi';

import { decorateClientAddress, resolveClientAddress } from '../../lib/client-address';
import { TrustedProxies } from '../../lib/trusted-proxies';

export const lab = Lab.script();
const { describe, it } = lab;

describe('resolveClientAddress()', () => {

    // nginx on the machine, a load balancer's range in front of it, and an IPv6 proxy range.
    const trusted = new TrustedProxies(['127.0.0.1', '10.0.0.0/8', '2001:db8:aaaa::/48']);

    const cases: [description: string, socket: string, forwardedFor: string | string[] | undefined, client: string][] = [
        ['no header: the socket\'s peer', '203.0.113.7', undefined, '203.0.113.7'],
        ['an untrusted peer: its header is ignored', '203.0.113.7', '198.51.100.1', '203.0.113.7'],
        ['an untrusted peer in a trusted range\'s neighbourhood: still ignored', '11.0.0.1', '198.51.100.1', '11.0.0.1'],
        ['a trusted peer: the address it appended', '127.0.0.1', '198.51.100.1', '198.51.100.1'],
        ['a chain of trusted proxies: the first untrusted address from the right', '127.0.0.1', '198.51.100.1, 10.1.2.3, 10.4.5.6', '198.51.100.1'],
        ['entries the client wrote itself, left of what the proxy appended: never believed', '127.0.0.1', '1.1.1.1, 10.9.9.9, 198.51.100.1', '198.51.100.1'],
        ['a spoofed trusted address behind an untrusted hop: never believed', '127.0.0.1', '10.0.0.1, 198.51.100.1', '198.51.100.1'],
        ['every hop trusted: the leftmost', '127.0.0.1', '10.0.0.1, 10.0.0.2', '10.0.0.1'],
        ['a trusted peer with an empty header: the peer', '127.0.0.1', '', '127.0.0.1'],
        ['a malformed entry right of the client: the walk ends at the trusted hop before it', '127.0.0.1', '198.51.100.1, not-an-address', '127.0.0.1'],
        ['a malformed entry after trusted hops: the last hop reached', '127.0.0.1', '198.51.100.1, garbage, 10.0.0.5', '10.0.0.5'],
        ['a malformed entry left of the client: never reached', '127.0.0.1', 'garbage, 198.51.100.1', '198.51.100.1'],
        ['an empty entry: malformed', '127.0.0.1', '198.51.100.1, , 10.0.0.5', '10.0.0.5'],
        ['an IPv4 client with the port it connected from (Azure Application Gateway, IIS ARR): the address', '127.0.0.1', '198.51.100.1:4711', '198.51.100.1'],
        ['an IPv6 client in brackets with its port: the address', '127.0.0.1', '[2001:db8:bbbb::7]:51234', '2001:db8:bbbb::7'],
        ['an IPv6 client in brackets without a port: the address', '127.0.0.1', '[2001:DB8:bbbb::7]', '2001:db8:bbbb::7'],
        ['a bare IPv6 client ending in digits: one IPv6 address, not host and port', '127.0.0.1', '2001:db8:bbbb::7:5123', '2001:db8:bbbb::7:5123'],
        ['a trusted hop with a port: skipped like any trusted hop', '127.0.0.1', '198.51.100.1, 10.0.0.5:443, [2001:db8:aaaa::2]:8443', '198.51.100.1'],
        ['a mapped IPv4 client in brackets with its port: the IPv4 address', '127.0.0.1', '[::ffff:198.51.100.1]:4711', '198.51.100.1'],
        ['"unknown" (an RFC 7239 token): the walk ends at the trusted hop before it', '127.0.0.1', '198.51.100.1, unknown', '127.0.0.1'],
        ['an obfuscated identifier, with or without a port: no address', '127.0.0.1', '198.51.100.1, _hidden:4711, 10.0.0.5', '10.0.0.5'],
        ['a port beyond 65535: malformed', '127.0.0.1', '198.51.100.1:65536', '127.0.0.1'],
        ['an empty port: malformed', '127.0.0.1', '198.51.100.1:', '127.0.0.1'],
        ['an IPv4 address in brackets: malformed (brackets are for IPv6)', '127.0.0.1', '[198.51.100.1]:4711', '127.0.0.1'],
        ['an unbracketed IPv6 address with a port appended: malformed', '127.0.0.1', '2001:db8:bbbb::7:51234', '127.0.0.1'],
        ['a host name with a port: malformed', '127.0.0.1', 'client.example:4711', '127.0.0.1'],
        ['a legacy IPv4 form with a port: malformed', '127.0.0.1', '0x7f.1:4711', '127.0.0.1'],
        ['unclosed brackets: malformed', '127.0.0.1', '[2001:db8:bbbb::7:51234', '127.0.0.1'],
        ['a legacy IPv4 form: malformed', '127.0.0.1', '0x7f.1', '127.0.0.1'],
        ['a huge entry: malformed, no crash', '127.0.0.1', `${'9'.repeat(5000)}`, '127.0.0.1'],
        ['spaces around entries: ignored', '127.0.0.1', '  198.51.100.1  ,10.0.0.5 ', '198.51.100.1'],
        ['the header sent twice: one list, in order', '127.0.0.1', ['198.51.100.1', '10.0.0.5'], '198.51.100.1'],
        ['IPv6 client behind a trusted IPv4 peer, in its compact form', '127.0.0.1', '2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
        ['IPv6 chain: trusted IPv6 proxies skipped', '2001:db8:aaaa::1', '2001:db8:bbbb::7, 2001:db8:aaaa::2', '2001:db8:bbbb::7'],
        ['an untrusted IPv6 peer: its header is ignored', '2001:db8:bbbb::1', '198.51.100.1', '2001:db8:bbbb::1'],
        ['a mapped IPv4 peer: trusted as its IPv4 address', '::ffff:127.0.0.1', '198.51.100.1', '198.51.100.1'],
        ['a mapped IPv4 client: the IPv4 address, one counter however it is written', '127.0.0.1', '::ffff:198.51.100.1', '198.51.100.1'],
        ['a mapped trusted hop: skipped as its IPv4 address', '127.0.0.1', '198.51.100.1, ::ffff:10.0.0.5', '198.51.100.1'],
        ['a mapped untrusted peer: reported as IPv4', '::ffff:203.0.113.7', '198.51.100.1', '203.0.113.7'],
        ['a peer that is no address (server.inject): as given, header ignored', 'shot', '198.51.100.1', 'shot']
    ];

    for (const [description, socket, forwardedFor, client] of cases) {
        it(description, () => {

            expect(resolveClientAddress(socket, forwardedFor, trusted)).to.equal(client);
        });
    }

    it('ignores the header of every peer when nobody is trusted (the default)', () => {

        const nobody = new TrustedProxies([]);
        expect(resolveClientAddress('127.0.0.1', '198.51.100.1', nobody)).to.equal('127.0.0.1');
        expect(resolveClientAddress('203.0.113.7', '198.51.100.1, 10.0.0.1', nobody)).to.equal('203.0.113.7');
    });
});

describe('decorateClientAddress()', () => {

    // The socket's peer is then ::ffff:127.0.0.1 (hapi's request.info strips the prefix; resolveClientAddress reads either).
    it('trusts a proxy reaching a dual-stack listener over IPv4, and reads the address of a hop written with its port', async () => {

        const server = Hapi.server({ host: '::', port: 0 });
        decorateClientAddress(server, new TrustedProxies(['127.0.0.1']));
        server.route({
            method: 'GET',
            path: '/',
            handler: (request) => ({ socket: request.raw.req.socket.remoteAddress, client: request.clientAddress() })
        });
        await server.start();
        try {
            const response = await fetch(`http://127.0.0.1:${server.info.port}/`, { headers: { 'x-forwarded-for': '203.0.113.7:51234' } });
            expect(await response.json()).to.equal({ socket: '::ffff:127.0.0.1', client: '203.0.113.7' });
        }
        finally {
            await server.stop();
        }
    });
});
