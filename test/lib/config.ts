import Fs from 'fs';
import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import { ConfigError, configFromEnvironment, usualFallbackFonts } from '../../lib/config';

export const lab = Lab.script();
const { describe, it } = lab;

describe('configFromEnvironment()', () => {

    describe('PUBLIC_BASE_URL, when unset', () => {

        const linksOf = (env: NodeJS.ProcessEnv) => configFromEnvironment(env).publicBaseUrl;

        it('is the listening address', () => {

            expect(linksOf({})).to.equal('http://127.0.0.1:3000');
            expect(linksOf({ HOST: 'records.internal', PORT: '8080' })).to.equal('http://records.internal:8080');
        });

        it('is localhost for a wildcard address, which no client can reach', () => {

            expect(linksOf({ HOST: '0.0.0.0' })).to.equal('http://localhost:3000');
            expect(linksOf({ HOST: '::' })).to.equal('http://localhost:3000');
        });

        it('brackets an IPv6 address', () => {

            expect(linksOf({ HOST: '::1', PORT: '4000' })).to.equal('http://[::1]:4000');
            expect(new URL(linksOf({ HOST: '::1' })).port).to.equal('3000');
        });

        it('gives way to PUBLIC_BASE_URL, without its trailing slash', () => {

            expect(linksOf({ HOST: '0.0.0.0', PUBLIC_BASE_URL: 'https://family.example.com/' })).to.equal('https://family.example.com');
        });
    });

    it('refuses an empty SECRET_KEY (as deploy/env.example ships it), naming it', () => {

        expect(() => configFromEnvironment({ SECRET_KEY: '' })).to.throw('Invalid configuration: "SECRET_KEY" is not allowed to be empty');
    });

    describe('PDF_FALLBACK_FONTS', () => {

        const fontsOf = (env: NodeJS.ProcessEnv) => configFromEnvironment(env).pdfFallbackFonts;

        it('is, when unset, each usual font (Noto Sans of a script, Noto Sans CJK last) at the first of its places that exists here', () => {

            const found = usualFallbackFonts.map((places) => places.find((path) => Fs.existsSync(path))).filter(Boolean);
            expect(fontsOf({})).to.equal(found);
            // .ci/run installs Debian's fonts-noto-core and fonts-noto-cjk.
            if (found.length === usualFallbackFonts.length) {
                expect(fontsOf({})[0]).to.equal('/usr/share/fonts/truetype/noto/NotoSansDevanagari-Regular.ttf');
                expect(fontsOf({}).at(-1)).to.equal('/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc');
            }
        });

        it('takes files separated by commas, relative ones from the current directory; empty is none', () => {

            expect(fontsOf({ PDF_FALLBACK_FONTS: '/fonts/a.ttc, fonts/b.otf ,' })).to.equal(['/fonts/a.ttc', Path.resolve('fonts/b.otf')]);
            expect(fontsOf({ PDF_FALLBACK_FONTS: '' })).to.equal([]);
        });
    });

    describe('TRUSTED_PROXIES', () => {

        it('trusts nobody when unset or blank', () => {

            expect(configFromEnvironment({}).trustedProxies).to.equal([]);
            expect(configFromEnvironment({ TRUSTED_PROXIES: '' }).trustedProxies).to.equal([]);
            expect(configFromEnvironment({ TRUSTED_PROXIES: '  ' }).trustedProxies).to.equal([]);
        });

        it('takes addresses and CIDR ranges of IPv4 and IPv6, separated by commas, spaces around them ignored', () => {

            const config = configFromEnvironment({ TRUSTED_PROXIES: '127.0.0.1, 10.0.0.0/8,::1 , 2001:db8::/32,::ffff:192.168.0.0/112' });
            expect(config.trustedProxies).to.equal(['127.0.0.1', '10.0.0.0/8', '::1', '2001:db8::/32', '::ffff:192.168.0.0/112']);
        });

        it('stops start-up naming the variable and the entry that is not an address or a range', () => {

            for (const entry of ['10.0.0.0/33', '2001:db8::/129', '10.0.0.0/8/8', '10.0.0.0/', 'localhost', '300.1.1.1', '127.1', '0x7f.0.0.1', '1.2.3.4:80', '[::1]', 'loopback']) {
                const error = expect(() => configFromEnvironment({ TRUSTED_PROXIES: `127.0.0.1,${entry}` })).to.throw(ConfigError);
                expect(error.message).to.equal(`Invalid configuration: "TRUSTED_PROXIES" has "${entry}", which is neither an IP address nor a CIDR range (give IP addresses or CIDR ranges separated by commas, such as 127.0.0.1,10.0.0.0/8)`);
            }
        });

        it('stops start-up on an empty entry rather than skipping it', () => {

            for (const value of ['127.0.0.1,,10.0.0.0/8', '127.0.0.1,', ',127.0.0.1', '127.0.0.1, ,::1']) {
                expect(() => configFromEnvironment({ TRUSTED_PROXIES: value })).to.throw(ConfigError, /^Invalid configuration: "TRUSTED_PROXIES" has an empty entry/);
            }
        });
    });

    describe('DATABASE_QUERY_TIMEOUT', () => {

        it('is 30 seconds when unset, and takes any number of seconds up to a day, 0 for none', () => {

            expect(configFromEnvironment({}).databaseQueryTimeoutSeconds).to.equal(30);
            expect(configFromEnvironment({ DATABASE_QUERY_TIMEOUT: '0' }).databaseQueryTimeoutSeconds).to.equal(0);
            expect(configFromEnvironment({ DATABASE_QUERY_TIMEOUT: '2.5' }).databaseQueryTimeoutSeconds).to.equal(2.5);
            expect(configFromEnvironment({ DATABASE_QUERY_TIMEOUT: '86400' }).databaseQueryTimeoutSeconds).to.equal(86_400);
        });

        it('stops start-up on anything else, naming it', () => {

            for (const value of ['-1', 'thirty', '', '86401']) {
                expect(() => configFromEnvironment({ DATABASE_QUERY_TIMEOUT: value }), value).to.throw(ConfigError, /^Invalid configuration: "DATABASE_QUERY_TIMEOUT" must be /);
            }
        });
    });

    describe('DATABASE_POOL_MAX', () => {

        it('is 10 when unset, and takes a whole number of connections from 1 to 1000', () => {

            expect(configFromEnvironment({}).databasePoolMax).to.equal(10);
            expect(configFromEnvironment({ DATABASE_POOL_MAX: '1' }).databasePoolMax).to.equal(1);
            expect(configFromEnvironment({ DATABASE_POOL_MAX: '25' }).databasePoolMax).to.equal(25);
            expect(configFromEnvironment({ DATABASE_POOL_MAX: '1000' }).databasePoolMax).to.equal(1000);
        });

        it('stops start-up on anything else, naming it', () => {

            for (const value of ['0', '-1', '2.5', 'ten', '', '1001']) {
                expect(() => configFromEnvironment({ DATABASE_POOL_MAX: value }), value).to.throw(ConfigError, /^Invalid configuration: "DATABASE_POOL_MAX" must be /);
            }
        });
    });

    describe('LOG_FORMAT', () => {

        it('is text when unset, and takes text or json', () => {

            expect(configFromEnvironment({}).logFormat).to.equal('text');
            expect(configFromEnvironment({ LOG_FORMAT: 'json' }).logFormat).to.equal('json');
            expect(configFromEnvironment({ LOG_FORMAT: 'text' }).logFormat).to.equal('text');
        });

        it('stops start-up on any other value, naming the ones it takes', () => {

            for (const value of ['JSON', 'logfmt', '']) {
                expect(() => configFromEnvironment({ LOG_FORMAT: value })).to.throw(ConfigError, /^Invalid configuration: "LOG_FORMAT" must be one of \[text, json\]/);
            }
        });
    });
});
