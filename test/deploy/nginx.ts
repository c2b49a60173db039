import Fs from 'fs';
import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import { projectRoot } from '../../lib/config';
import { testServer } from '../helpers/server';

export const lab = Lab.script();
const { describe, it } = lab;

/** nginx's size syntax: bytes, or k/m/g (binary multiples). */
function nginxBytes(size: string): number {

    const [, number, unit] = /^(\d+)([kmg]?)$/i.exec(size)!;
    return Number(number) * 1024 ** ['', 'k', 'm', 'g'].indexOf(unit.toLowerCase());
}

describe('deploy/nginx.conf', () => {

    it('lets through the largest upload body the service accepts, so the service answers too_large itself', async () => {

        const conf = Fs.readFileSync(Path.join(projectRoot, 'deploy', 'nginx.conf'), 'utf8');
        const limits = [...conf.matchAll(/^\s*client_max_body_size\s+(\S+);/gm)].map(([, size]) => nginxBytes(size));
        expect(limits).to.have.length(1);

        const server = await testServer();
        try {
            for (const resource of ['gallery', 'documents']) {
                // The shipped plans' largest file (25 MiB) base64-encoded in JSON: a third more.
                const routeLimit = server.lookup(`files.upload.${resource}`)!.settings.payload!.maxBytes!;
                expect(limits[0]).to.be.at.least(routeLimit);
            }
        }
        finally {
            await server.stop();
        }
    });
});
