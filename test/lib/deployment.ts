import Fs from 'fs';
import Path from 'path';

import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';
import { Sequelize } from 'sequelize';

import { PolicyStore } from '../../gateway/policies/policy-store';
import { projectRoot } from '../../lib/config';
import { scratchDirectory, testServer, testVariant } from '../helpers/server';

export const lab = Lab.script();
const { describe, it } = lab;

/** A copy of gateway.yaml without its public paths: the reference's route then lies in the API group without its auth. */
function gatewayConfigStartUpRefuses(): string {

    const file = Path.join(scratchDirectory(), 'gateway.yaml');
    Fs.writeFileSync(file, Fs.readFileSync(Path.join(projectRoot, 'gateway', 'gateway.yaml'), 'utf8').replace(/^\s*public_paths:.*$/m, ''));
    return file;
}

/** Counts the calls of `prototype[method]` while `work` runs; the method still does its work. */
async function callsDuring(prototype: object, method: string, work: () => Promise<void>): Promise<number> {

    const target = prototype as Record<string, (...args: unknown[]) => unknown>;
    const original = target[method];
    let calls = 0;
    target[method] = function (this: unknown, ...args: unknown[]) {

        calls += 1;
        return original.apply(this, args);
    };

    try {
        await work();
    }
    finally {
        target[method] = original;
    }

    return calls;
}

describe('deployment()', () => {

    it('closes the database and stops watching the policies when the service cannot start', async () => {

        let watchersClosed = 0;
        const databasesClosed = await callsDuring(Sequelize.prototype, 'close', async () => {

            watchersClosed = await callsDuring(PolicyStore.prototype, 'close', async () => {

                await expect(testServer({ env: { GATEWAY_CONFIG: gatewayConfigStartUpRefuses(), WATCH_POLICIES: 'true' } })).to.reject(/\/api\/v1\/openapi\.json lies under route group "family-api"/);
            });
        });

        expect(databasesClosed).to.equal(testVariant === 'postgres' ? 2 : 1);          // on PostgreSQL, the migrations' own Sequelize too
        expect(watchersClosed).to.equal(1);
    });
});
