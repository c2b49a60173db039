/*
 * The routes and configurations the gateway benchmarks compare: a no-op route of the family API
 * behind the whole gateway chain, the same answer outside any route group, gateway.yaml with
 * every policy disabled (API-key authentication alone), and the same answer behind auth schemes
 * that admit every request, without and with the gateway's RateLimit headers (the floor under any
 * gateway of the deployment). gateway-noop.ts measures them in requests/s, gateway-instructions.ts
 * in instructions per request.
 */
import Fs from 'fs';
import Path from 'path';

import type { Server, ServerAuthScheme, ServerRoute } from '@hapi/hapi';
import YAML from 'yaml';

import { decide } from '../../gateway/rate-limit/decide';
import { writeRateLimitHeaders } from '../../gateway/rate-limit/headers';
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
export const ranThePolicyChain = (_body: unknown, headers: Headers) => (headers.has('ratelimit-policy') ? undefined : 'no RateLimit headers: the policy chain did not run');
export const ranNoPolicy = (_body: unknown, headers: Headers) => (headers.has('ratelimit-policy') ? 'RateLimit headers: the policies were meant to be off' : undefined);

/** The deployment's routes behind the admit-all schemes below (outside /api/v1, so no route group claims them). */
export const admittedPaths = { withoutHeaders: '/bench-admitted', withHeaders: '/bench-admitted-headers' };

/** An auth scheme that admits every request at once, synchronously: hapi's authentication step and nothing else. */
export const admitEveryRequest: ServerAuthScheme = () => ({ authenticate: (_request, h) => h.authenticated({ credentials: {} }) });

/**
 * One decision of the gateway's rate-limit policy (a key's and a family's rule, as the bench policies give them),
 * made once: the headers row writes it on every answer, as the gateway does, without counting anything.
 */
const fixedDecision = decide(
    [{ policy: 'key', subject: 'key_bench', limit: 1_000_000_000, windowSeconds: 60 }, { policy: 'family', subject: 'fam_bench', limit: 1_000_000_000, windowSeconds: 60 }],
    [{ used: 0, ttlMs: 30_000 }, { used: 0, ttlMs: 30_000 }]
);

/** admitEveryRequest, writing the gateway's RateLimit headers first. */
const admitWithRateLimitHeaders: ServerAuthScheme = () => ({

    authenticate: (request, h) => {

        writeRateLimitHeaders(fixedDecision, request.raw.res);
        return h.authenticated({ credentials: {} });
    }
});

/** An auth scheme and a strategy of it, both named `name`. */
export function addStrategy(server: Server, name: string, scheme: ServerAuthScheme): void {

    server.auth.scheme(name, scheme);
    server.auth.strategy(name, name);
}

/**
 * Routes of the deployment outside the API's path behind those two schemes: everything the deployment does for
 * a request authenticated at no cost, without and with the headers. hapi allows schemes and routes after start.
 */
export function addAdmittedRoutes(server: Server): void {

    addStrategy(server, 'admit-every-request', admitEveryRequest);
    addStrategy(server, 'admit-with-rate-limit-headers', admitWithRateLimitHeaders);
    server.route([
        {
            method: 'GET',
            path: admittedPaths.withoutHeaders,
            options: { auth: 'admit-every-request' },
            handler: () => noopBody
        },
        {
            method: 'GET',
            path: admittedPaths.withHeaders,
            options: { auth: 'admit-with-rate-limit-headers' },
            handler: () => noopBody
        }
    ]);
}

/** Preflight check: the answer carries the fixed decision's RateLimit headers. */
export const wroteFixedRateLimitHeaders = (_body: unknown, headers: Headers) => (headers.get('ratelimit-remaining') === String(fixedDecision.tightest.remaining) ? undefined : 'not the fixed decision\'s RateLimit headers');
