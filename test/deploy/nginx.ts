import Crypto from 'crypto';
import Fs from 'fs';
import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import { configFromEnvironment, projectRoot } from '../../lib/config';
import { parseIpAddress, TrustedProxies } from '../../lib/trusted-proxies';
import { testServer } from '../helpers/server';

export const lab = Lab.script();
const { describe, it } = lab;

/** nginx's size syntax: bytes, or k/m/g (binary multiples). */
function nginxBytes(size: string): number {

    const [, number, unit] = /^(\d+)([kmg]?)$/i.exec(size)!;
    return Number(number) * 1024 ** ['', 'k', 'm', 'g'].indexOf(unit.toLowerCase());
}

describe('deploy/nginx.conf', () => {

    it('lets through the largest upload body the service accepts, and the largest compose form of the site, so the service answers too large itself', async () => {

        const conf = Fs.readFileSync(Path.join(projectRoot, 'deploy', 'nginx.conf'), 'utf8');
        const block = /^server \{([^]*)^\}/m.exec(conf)![1];
        const limitsIn = (text: string) => [...text.matchAll(/^\s*client_max_body_size\s+(\S+);/gm)].map(([, size]) => nginxBytes(size));
        const serverLimits = limitsIn(block.replace(/^\s*location [^{]*\{[^}]*\}/gm, ''));
        expect(serverLimits).to.have.length(1);
        const composeLimits = limitsIn(/^\s*location ~ \^\/messages\/cnv_[^{]*\{([^}]*)\}/m.exec(block)![1]);
        expect(composeLimits).to.have.length(1);
        expect(limitsIn(conf)).to.have.length(2);

        const server = await testServer();
        try {
            for (const resource of ['gallery', 'documents']) {
                // The shipped plans' largest file (25 MiB) base64-encoded in JSON: a third more.
                const routeLimit = server.match('POST', `/api/v1/${resource}`)!.settings.payload!.maxBytes!;
                expect(serverLimits[0]).to.be.at.least(routeLimit);
            }

            // Three of the shipped plans' largest attachment (25 MiB) and the text.
            expect(composeLimits[0]).to.be.at.least(server.match('POST', '/messages/cnv_00000000000000000000')!.settings.payload!.maxBytes!);
        }
        finally {
            await server.stop();
        }
    });

    it('sets the proxied headers once for every location: none sets its own, which would drop them all', () => {

        const conf = Fs.readFileSync(Path.join(projectRoot, 'deploy', 'nginx.conf'), 'utf8');
        const server = /^server \{([^]*)^\}/m.exec(conf)![1];
        const locations = [...server.matchAll(/^\s*location [^{]*\{([^}]*)\}/gm)].map(([, body]) => body);
        expect(locations.length).to.be.at.least(3);
        for (const location of locations) {
            expect(location).to.not.contain('proxy_set_header');
        }

        const serverLevel = server.replace(/^\s*location [^{]*\{[^}]*\}/gm, '');
        expect(serverLevel).to.match(/^\s*proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;/m);
        expect(serverLevel).to.match(/^\s*proxy_set_header X-Request-Id \$request_id;/m);
    });

    it('has env.example trust the X-Forwarded-For that nginx appends to', () => {

        const conf = Fs.readFileSync(Path.join(projectRoot, 'deploy', 'nginx.conf'), 'utf8');
        // The instances listen on loopback (the upstream block), so nginx reaches them from 127.0.0.1.
        expect(conf).to.match(/^\s*server 127\.0\.0\.1:\d+/m);
        const lines = Fs.readFileSync(Path.join(projectRoot, 'deploy', 'env.example'), 'utf8').split('\n').filter((line) => /^[A-Z_]+=/.test(line));
        const env = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
        // SECRET_KEY ships empty, for the operator to fill (start-up refuses it as it is).
        expect(() => configFromEnvironment(env)).to.throw(/"SECRET_KEY" is not allowed to be empty/);
        const trusted = new TrustedProxies(configFromEnvironment({ ...env, SECRET_KEY: Crypto.randomBytes(36).toString('base64') }).trustedProxies);
        expect(trusted.includes(parseIpAddress('127.0.0.1')!)).to.be.true();
    });

    it('writes its request id in its access log', () => {

        const conf = Fs.readFileSync(Path.join(projectRoot, 'deploy', 'nginx.conf'), 'utf8');
        const format = /^log_format (\w+) ([^;]*);/m.exec(conf);
        expect(format![2]).to.contain('$request_id');
        expect(conf).to.match(new RegExp(`^\\s*access_log \\S+ ${format![1]};`, 'm'));
    });
});
