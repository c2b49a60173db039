import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import { parseIpAddress, TrustedProxies } from '../../lib/trusted-proxies';

export const lab = Lab.script();
const { describe, it } = lab;

describe('TrustedProxies', () => {

    const includes = (proxies: TrustedProxies, address: string) => proxies.includes(parseIpAddress(address)!);

    it('trusts the addresses and ranges it lists, and nothing else', () => {

        const proxies = new TrustedProxies(['127.0.0.1', '10.0.0.0/8', '2001:db8::/32', '::1']);
        expect(proxies.none).to.be.false();
        for (const address of ['127.0.0.1', '10.0.0.0', '10.255.255.255', '2001:db8::1', '2001:DB8:0:0::ffff', '::1']) {
            expect(includes(proxies, address), address).to.be.true();
        }

        for (const address of ['127.0.0.2', '11.0.0.1', '2001:db9::1', '::2', '::a00:1']) {
            expect(includes(proxies, address), address).to.be.false();
        }
    });

    it('matches an IPv4-mapped address against IPv4 ranges, and a mapped range against IPv4 addresses', () => {

        expect(includes(new TrustedProxies(['127.0.0.1']), '::ffff:127.0.0.1')).to.be.true();
        const mapped = new TrustedProxies(['::ffff:192.168.0.0/112']);
        expect(includes(mapped, '192.168.4.5')).to.be.true();
        expect(includes(mapped, '192.169.0.1')).to.be.false();
    });

    it('trusts nobody when it lists nothing', () => {

        const proxies = new TrustedProxies([]);
        expect(proxies.none).to.be.true();
        expect(includes(proxies, '127.0.0.1')).to.be.false();
    });

    it('refuses an entry that is not an address or a range, naming it', () => {

        expect(() => new TrustedProxies(['10.0.0.0/33'])).to.throw('TRUSTED_PROXIES has "10.0.0.0/33", which is neither an IP address nor a CIDR range');
    });
});

describe('parseIpAddress()', () => {

    it('reads dotted-quad IPv4 and IPv6, and a mapped IPv4 address as the IPv4 one', () => {

        expect(parseIpAddress('203.0.113.7')!.toString()).to.equal('203.0.113.7');
        expect(parseIpAddress('2001:0DB8:0:0::1')!.toString()).to.equal('2001:db8::1');
        expect(parseIpAddress('::ffff:203.0.113.7')!.toString()).to.equal('203.0.113.7');
        expect(parseIpAddress('::FFFF:cb00:7107')!.toString()).to.equal('203.0.113.7');
    });

    it('takes nothing else: no port, brackets, spaces, names or legacy IPv4 forms', () => {

        for (const text of ['', ' 1.2.3.4', '1.2.3.4:80', '[::1]', '[::1]:80', 'unknown', 'localhost', '127.1', '0x7f.0.0.1', '010.0.0.1', '1.2.3.4.5', '256.0.0.1', '1.2.3.4/32']) {
            expect(parseIpAddress(text), text).to.be.undefined();
        }
    });
});
