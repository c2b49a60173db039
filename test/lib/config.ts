import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';

import { configFromEnvironment } from '../../lib/config';

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
});
