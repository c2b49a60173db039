import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import type { WebhooksPolicy } from '../../../plugins/webhooks/policy';
import { projectRoot } from '../../../lib/config';
import { checkDestination, DestinationRefused } from '../../../plugins/webhooks/destination';
import type { Resolver } from '../../../plugins/webhooks/resolver';
import { scriptedResolver } from './helpers/setup';
import { loadServicePolicies } from '../../helpers/policy-files';

export const lab = Lab.script();
const { describe, it } = lab;

const shipped = loadServicePolicies(Path.join(projectRoot, 'policies')).webhooks.destinations;

/** For URLs that name an address: resolving anything is a failure of the check itself. */
const noResolving: Resolver = (hostname) => Promise.reject(new Error(`resolved ${hostname}, which names an address`));

async function refusal(url: string, resolve: Resolver = noResolving, rules: WebhooksPolicy['destinations'] = shipped): Promise<string> {

    const error = await expect(checkDestination(url, rules, resolve)).to.reject(DestinationRefused);
    return error.message;
}

describe('checkDestination() with the shipped policy', () => {

    // Every form of a non-public address, as a URL names it. The WHATWG parser turns the
    // numeric IPv4 tricks into 127.0.0.1 before the check sees them.
    const addressForms: [string, string][] = [
        ['https://127.0.0.1/', 'loopback'],
        ['https://127.255.255.254/', 'loopback'],
        ['https://127.1/', 'loopback'],
        ['https://2130706433/', 'loopback'],
        ['https://0x7f.1/', 'loopback'],
        ['https://0x7f000001/', 'loopback'],
        ['https://017700000001/', 'loopback'],
        ['https://0177.0.0.1/', 'loopback'],
        ['https://[::1]/', 'loopback'],
        ['https://[::ffff:127.0.0.1]/', 'IPv4-mapped'],
        ['https://[::ffff:7f00:1]/', 'IPv4-mapped'],
        ['https://[::ffff:10.0.0.1]/', 'IPv4-mapped'],
        ['https://[::127.0.0.1]/', 'refused range ::/3'],
        ['https://[::7f00:1]/', 'refused range ::/3'],
        ['https://[::ffff:0:7f00:1]/', 'IPv4-translated'],
        ['https://[64:ff9b::7f00:1]/', 'NAT64'],
        ['https://[64:ff9b:1::a00:1]/', 'NAT64'],
        ['https://[2002:7f00:1::1]/', '6to4'],
        ['https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', 'Teredo'],
        ['https://10.0.0.1/', 'private'],
        ['https://172.16.5.4/', 'private'],
        ['https://172.31.255.255/', 'private'],
        ['https://192.168.1.1/', 'private'],
        ['https://169.254.169.254/', 'link-local'],
        ['https://[fe80::1]/', 'link-local'],
        ['https://100.64.0.1/', 'carrier-grade NAT'],
        ['https://100.127.255.254/', 'carrier-grade NAT'],
        ['https://224.0.0.1/', 'multicast'],
        ['https://239.255.255.250/', 'multicast'],
        ['https://[ff02::1]/', 'multicast'],
        ['https://0.0.0.0/', 'unspecified'],
        ['https://0/', 'unspecified'],
        ['https://0.1.2.3/', 'unspecified'],
        ['https://[::]/', 'unspecified'],
        ['https://255.255.255.255/', 'broadcast'],
        ['https://240.0.0.1/', 'reserved'],
        ['https://192.0.0.8/', 'reserved'],
        ['https://198.18.0.1/', 'reserved'],
        ['https://192.0.2.1/', 'documentation'],
        ['https://198.51.100.7/', 'documentation'],
        ['https://203.0.113.9/', 'documentation'],
        ['https://[2001:db8::1]/', 'documentation'],
        ['https://[fc00::1]/', 'unique-local'],
        ['https://[fd12:3456:789a::1]/', 'unique-local'],
        ['https://[100::1]/', 'discard'],
        ['https://[fec0::1]/', 'deprecatedSiteLocal'],
        ['https://[4000::1]/', 'refused range 4000::/2'],
        ['https://[c000::1]/', 'refused range 8000::/1']
    ];

    for (const [url, kind] of addressForms) {
        it(`refuses ${url} (${kind})`, async () => {

            expect(await refusal(url)).to.match(/^The URL names .+, not a public one\.$|^The URL names .+ in the refused range .+\.$/);
            expect(await refusal(url)).to.contain(kind.replace('documentation', 'reserved or documentation'));
        });
    }

    it('says how the numeric forms were read', async () => {

        expect(await refusal('https://0x7f.1/')).to.equal('The URL names 127.0.0.1, a loopback address, not a public one.');
        expect(await refusal('https://[::ffff:127.0.0.1]/')).to.equal('The URL names ::ffff:7f00:1, an IPv4-mapped IPv6 address, not a public one.');
    });

    const urlRules: [string, string][] = [
        ['http://example.com/hook', 'The URL must use https, not http.'],
        ['ftp://example.com/hook', 'The URL must use https, not ftp.'],
        ['https://example.com:8443/hook', 'The URL must use port 443, not 8443.'],
        ['https://example.com:80/hook', 'The URL must use port 443, not 80.'],
        ['https://user:secret@example.com/hook', 'The URL must not contain a user name or password.'],
        ['https://user@example.com/hook', 'The URL must not contain a user name or password.'],
        ['https://localhost/hook', 'The host localhost is not allowed (localhost and every name under it are refused).'],
        ['https://LOCALHOST/hook', 'The host localhost is not allowed (localhost and every name under it are refused).'],
        ['https://api.localhost/hook', 'The host api.localhost is not allowed (localhost and every name under it are refused).'],
        ['https://localhost./hook', 'Write the host without the final dot: "localhost".'],
        ['https://example.com./hook', 'Write the host without the final dot: "example.com".'],
        ['not a url', '"not a url" is not a URL.'],
        [`https://example.com/${'a'.repeat(2048)}`, 'The URL is longer than 2048 characters.']
    ];

    for (const [url, message] of urlRules) {
        it(`refuses ${url.slice(0, 60)}`, async () => {

            expect(await refusal(url)).to.equal(message);
        });
    }

    // Forms other URL parsers read differently from Node's WHATWG parser: Python's urlsplit reads the first
    // as the host 127.0.0.1 behind a user name, where Node connects to 93.184.216.34.
    const ambiguousForms: [string, string][] = [
        ['https://93.184.216.34\\@127.0.0.1/', 'The URL must not contain a backslash: parsers disagree on whether it ends the host.'],
        ['https://93.184.216.34\\/hook', 'The URL must not contain a backslash: parsers disagree on whether it ends the host.'],
        ['https:\\\\93.184.216.34/hook', 'The URL must not contain a backslash: parsers disagree on whether it ends the host.'],
        ['https://93.184.216.34/a\\b', 'The URL must not contain a backslash: parsers disagree on whether it ends the host.'],
        ['https://@93.184.216.34/', 'The URL must not contain a user name or password.'],
        ['https://:@93.184.216.34/', 'The URL must not contain a user name or password.'],
        ['https://127.0.0.1@93.184.216.34/', 'The URL must not contain a user name or password.'],
        ['https://a@b@93.184.216.34/', 'The URL must not contain a user name or password.'],
        ['https:93.184.216.34/hook', 'The URL must be written https://host/path: the scheme, two slashes, then the host.'],
        ['https:/93.184.216.34/hook', 'The URL must be written https://host/path: the scheme, two slashes, then the host.'],
        ['https:///93.184.216.34/hook', 'The URL must be written https://host/path: the scheme, two slashes, then the host.'],
        [' https://93.184.216.34/', 'The URL must not contain spaces, tabs, line breaks or other control characters: write a space as %20.'],
        ['https://93.184.216.34/ ', 'The URL must not contain spaces, tabs, line breaks or other control characters: write a space as %20.'],
        ['https://93.184.\t216.34/', 'The URL must not contain spaces, tabs, line breaks or other control characters: write a space as %20.'],
        ['https://93.184.216.34\n.example.com/', 'The URL must not contain spaces, tabs, line breaks or other control characters: write a space as %20.'],
        ['https://example.com/a\rb', 'The URL must not contain spaces, tabs, line breaks or other control characters: write a space as %20.'],
        ['https://example.com/a b', 'The URL must not contain spaces, tabs, line breaks or other control characters: write a space as %20.'],
        ['https://example.com/\u0000', 'The URL must not contain spaces, tabs, line breaks or other control characters: write a space as %20.'],
        ['https://example.com/\u00a0', 'The URL must not contain spaces, tabs, line breaks or other control characters: write a space as %20.'],
        ['https://%31%32%37.0.0.1/', 'The URL\'s host must not be percent-encoded: write its characters themselves.'],
        ['https://example%2Ecom/', 'The URL\'s host must not be percent-encoded: write its characters themselves.']
    ];

    for (const [url, message] of ambiguousForms) {
        it(`refuses ${JSON.stringify(url)}, which parsers read differently`, async () => {

            expect(await refusal(url, noResolving)).to.equal(message);
        });
    }

    it('gives the URL in its WHATWG serialisation, the form every parser reads alike', async () => {

        const resolve: Resolver = () => Promise.resolve([{ address: '93.184.216.34', family: 4 }]);
        const cases: [string, string][] = [
            ['HTTPS://Example.COM:443/a/../hook?x=1#f', 'https://example.com/hook?x=1#f'],
            ['https://93.184.216.34:0443/hook', 'https://93.184.216.34/hook'],
            ['https://1572395042/hook', 'https://93.184.216.34/hook'],
            ['https://bücher.example/hook', 'https://xn--bcher-kva.example/hook'],
            ['https://example.com/ä?q=ö', 'https://example.com/%C3%A4?q=%C3%B6']
        ];
        for (const [url, href] of cases) {
            expect((await checkDestination(url, shipped, resolve)).url.href, url).to.equal(href);
        }
    });

    it('refuses a host any of whose addresses is not public', async () => {

        expect(await refusal('https://hooks.example/x', scriptedResolver({ 'hooks.example': '10.1.2.3' }))).to.equal('The host hooks.example resolves to 10.1.2.3, a private address, not a public one.');
        expect(await refusal('https://hooks.example/x', scriptedResolver({ 'hooks.example': ['93.184.216.34', '127.0.0.1'] }))).to.equal('The host hooks.example resolves to 127.0.0.1, a loopback address, not a public one.');
        expect(await refusal('https://hooks.example/x', scriptedResolver({ 'hooks.example': '::ffff:169.254.169.254' }))).to.contain('IPv4-mapped');
        expect(await refusal('https://hooks.example/x', scriptedResolver({ 'hooks.example': 'fd00::1' }))).to.contain('unique-local');
    });

    it('keeps every address of a host to try them in turn: each once, the families taking turns (RFC 8305)', async () => {

        const v4 = ['93.184.216.34', '93.184.216.35', '93.184.216.36'];
        const v6 = ['2606:2800:220:1::1', '2606:2800:220:1::2'];
        const resolve = (addresses: string[]) => scriptedResolver({ 'hooks.example': addresses });
        const addressesOf = async (addresses: string[]) => (await checkDestination('https://hooks.example/x', shipped, resolve(addresses))).addresses;

        expect(await addressesOf([...v6, ...v4])).to.equal([v6[0], v4[0], v6[1], v4[1], v4[2]]);
        expect(await addressesOf([v4[0], ...v6, v4[1]])).to.equal([v4[0], v6[0], v4[1], v6[1]]);
        expect(await addressesOf([v4[0], v4[1], v4[0], v4[2]])).to.equal(v4);
    });

    it('refuses a host that does not resolve', async () => {

        expect(await refusal('https://nowhere.example/x', scriptedResolver({}))).to.equal('The host nowhere.example does not resolve (ENOTFOUND).');
        expect(await refusal('https://empty.example/x', scriptedResolver({ 'empty.example': [] }))).to.equal('The host empty.example does not resolve to any address.');
    });

    it('allows a public host, and the request will go to the address that was checked', async () => {

        const checked = await checkDestination('https://hooks.example/x?y=1', shipped, scriptedResolver({ 'hooks.example': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'] }));
        expect(checked).to.include({ addresses: ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'], port: 443, servername: 'hooks.example' });
        expect(checked.url.href).to.equal('https://hooks.example/x?y=1');

        const literal = await checkDestination('https://[2606:2800:220:1:248:1893:25c8:1946]/x', shipped, noResolving);
        expect(literal).to.include({ addresses: ['2606:2800:220:1:248:1893:25c8:1946'], port: 443 });
        expect(literal.servername).to.not.exist();
    });
});

describe('checkDestination() with a test policy', () => {

    const testRules = { ...shipped, allowed_ranges: ['unicast', 'loopback'], ports: [443, 8443], blocked_hosts: [] };

    it('allows loopback and another port only when the policy lists them', async () => {

        expect(await checkDestination('https://127.0.0.1:8443/', testRules, noResolving)).to.include({ addresses: ['127.0.0.1'], port: 8443 });
        expect(await refusal('https://127.0.0.1:8443/')).to.equal('The URL must use port 443, not 8443.');
        expect(await refusal('https://127.0.0.1/')).to.equal('The URL names 127.0.0.1, a loopback address, not a public one.');
    });

    it('still refuses what the policy does not list', async () => {

        expect(await refusal('https://10.0.0.1:8443/', noResolving, testRules)).to.contain('private');
        expect(await refusal('https://[::ffff:127.0.0.1]:8443/', noResolving, testRules)).to.contain('IPv4-mapped');
    });
});
