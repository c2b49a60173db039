import Fs from 'fs';
import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { keptLog } from '../helpers/kept-log';
import { copyPolicies, familyWithKey, testServer } from '../helpers/server';
import { expectRefusal, expectSuccess } from './requests';

export const lab = Lab.script();
const { describe, it, afterEach } = lab;

/** Rewrites part of a policy file; fails when `from` is not there, so a test never passes on an edit that did nothing. */
function edit(directory: string, file: string, from: string, to: string): void {

    const path = Path.join(directory, file);
    const text = Fs.readFileSync(path, 'utf8');
    expect(text).to.include(from);
    Fs.writeFileSync(path, text.replace(from, to));
}

const maxWithApi = 'name: max\n    label: Max\n    api_access: true';
const maxWithoutApi = 'name: max\n    label: Max\n    api_access: false';

describe('PolicyStore.reload() in a running server', () => {

    let server: Server | undefined;

    afterEach(async () => {

        await server?.stop();
        server = undefined;
    });

    /** A server on its own copy of the policies, and a Max family with a key; the reloads it refuses are logged in `lines`. */
    async function serverOnCopy(keyOperations?: string[]) {

        const policiesDir = copyPolicies();
        const { log, lines } = keptLog([/^\[policy,error\] policies not reloaded, the last good ones stay in force:\n/]);
        server = await testServer({ policiesDir, log });
        const family = await familyWithKey(server, { plan: 'max', operations: keyOperations });
        const refusedReloads = () => lines.filter((line) => line.startsWith('[policy,error]'));
        return { policiesDir, family, refusedReloads, reload: () => server!.app.services.policyStore.reload() };
    }

    it('applies an edited plan to the next request once reloaded', async () => {

        const { policiesDir, family, reload } = await serverOnCopy();
        expectSuccess(await family.inject('GET', '/api/v1/persons'));

        edit(policiesDir, 'plans.yaml', maxWithApi, maxWithoutApi);
        expectSuccess(await family.inject('GET', '/api/v1/persons'));         // watching is off: nothing changes before the reload

        expect(reload()).to.be.true();
        const refusal = expectRefusal(await family.inject('GET', '/api/v1/persons'), 403, 'plan_not_eligible');
        expect(refusal.message).to.startWith('The Max plan does not include API access');

        edit(policiesDir, 'plans.yaml', maxWithoutApi, maxWithApi);
        expect(reload()).to.be.true();
        expectSuccess(await family.inject('GET', '/api/v1/persons'));
    });

    it('refuses an invalid edit and keeps the last good policies in force, and logs why', async () => {

        const { policiesDir, family, refusedReloads, reload } = await serverOnCopy();
        edit(policiesDir, 'plans.yaml', maxWithApi, maxWithoutApi);
        expect(reload()).to.be.true();

        edit(policiesDir, 'plans.yaml', maxWithoutApi, 'name: max\n    label: Max\n    api_access: sometimes');
        expect(reload()).to.be.false();
        expectRefusal(await family.inject('GET', '/api/v1/persons'), 403, 'plan_not_eligible');

        edit(policiesDir, 'plans.yaml', 'api_access: sometimes', 'api_access: true\n    rate_limit_typo: high');
        expect(reload()).to.be.false();
        expectRefusal(await family.inject('GET', '/api/v1/persons'), 403, 'plan_not_eligible');

        const [sometimes, typo, ...more] = refusedReloads();
        expect(sometimes).to.endWith('plans.yaml: plans[2].api_access: must be a boolean');
        expect(typo).to.endWith('plans.yaml: plans[2].rate_limit_typo: is not allowed');
        expect(more).to.equal([]);
    });

    it('keeps serving a family when an invalid edit would have refused it', async () => {

        const { policiesDir, family, refusedReloads, reload } = await serverOnCopy();
        edit(policiesDir, 'plans.yaml', maxWithApi, `${maxWithoutApi}\n    upgrade_to: nowhere`);
        expect(reload()).to.be.false();
        expectSuccess(await family.inject('GET', '/api/v1/persons'));
        expect(refusedReloads()).to.have.length(1);
        expect(refusedReloads()[0]).to.endWith('plans.yaml: plans[2].upgrade_to: "nowhere" is not a plan with api_access: true');
    });

    it('applies edited rate limits', async () => {

        const { policiesDir, family, reload } = await serverOnCopy();
        expectSuccess(await family.inject('GET', '/api/v1/persons'));

        edit(policiesDir, 'rate-limits.yaml', 'per_key:\n      limit: 3000\n      window_seconds: 60', 'per_key:\n      limit: 1\n      window_seconds: 3600');
        expect(reload()).to.be.true();

        const admitted = await family.inject('GET', '/api/v1/persons');
        expectSuccess(admitted);
        expect(admitted.headers['ratelimit-policy']).to.equal('"key";q=1;w=3600, "family";q=6000;w=60');
        expectRefusal(await family.inject('GET', '/api/v1/persons'), 429, 'rate_limited');
    });

    it('keeps the last good rate limits when an edit makes a window longer than a day', async () => {

        const { policiesDir, family, refusedReloads, reload } = await serverOnCopy();
        edit(policiesDir, 'rate-limits.yaml', 'per_key:\n      limit: 3000\n      window_seconds: 60', 'per_key:\n      limit: 3000\n      window_seconds: 1000000000000');
        expect(reload()).to.be.false();
        expect(refusedReloads()).to.have.length(1);
        expect(refusedReloads()[0]).to.endWith('rate-limits.yaml: presets[1].per_key.window_seconds: must be less than or equal to 86400');

        const response = await family.inject('GET', '/api/v1/persons');
        expectSuccess(response);
        expect(response.headers['ratelimit-policy']).to.equal('"key";q=3000;w=60, "family";q=6000;w=60');
    });

    it('applies edited scopes', async () => {

        const { policiesDir, family, reload } = await serverOnCopy(['read']);
        expectRefusal(await family.inject('GET', '/api/v1/persons?direction=desc'), 403, 'operation_scope');

        edit(policiesDir, 'scopes.yaml', '  - parameter: direction\n    operation: sort\n', '');
        expect(reload()).to.be.true();
        expectSuccess(await family.inject('GET', '/api/v1/persons?direction=desc'));
    });
});
