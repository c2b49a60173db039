/*
 * The routes and configurations the gateway benchmarks compare: a no-op route of the family API
 * behind the whole gateway chain, the same answer outside any route group, and gateway.yaml with
 * every policy disabled (API-key authentication alone). gateway-noop.ts measures them in requests/s,
 * gateway-instructions.ts in instructions per request.
 */
import Fs from 'fs';
import Path from 'path';

import type { ServerRoute } from '@hapi/hapi';
import YAML from 'yaml';

import { projectRoot } from '../../lib/config';
import { scratchDirectory } from '../../test/helpers/server';
import { noopBody } from './servers';

export const noopRoute: ServerRoute = {
    method: 'GET',
    path: '/api/v1/bench-noop',
    options: { auth: 'family-api', plugins: { gateway: { resource: 'persons', operation: 'read' } } },
    handler: () => noopBody
};

export const ungatedRoute: ServerRoute = { method: 'GET', path: '/bench-noop', handler: () => noopBody };

/** A copy of gateway.yaml whose every policy is disabled: API-key authentication alone. */
export function authOnlyGatewayConfig(): string {

    const document = YAML.parse(Fs.readFileSync(Path.join(projectRoot, 'gateway', 'gateway.yaml'), 'utf8'));
    for (const group of document.route_groups) {
        for (const policy of group.policies) {
            policy.enabled = false;
        }
    }

    const file = Path.join(scratchDirectory(), 'gateway.yaml');
    Fs.writeFileSync(file, YAML.stringify(document));
    return file;
}

/** Preflight checks: the whole chain answers with RateLimit headers, API-key authentication alone without. */
export const ranThePolicyChain = (_body: unknown, headers: Headers) => headers.has('ratelimit-policy') ? undefined : 'no RateLimit headers: the policy chain did not run';
export const ranNoPolicy = (_body: unknown, headers: Headers) => headers.has('ratelimit-policy') ? 'RateLimit headers: the policies were meant to be off' : undefined;
