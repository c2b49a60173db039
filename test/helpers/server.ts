import Fs from 'fs';
import Os from 'os';
import Path from 'path';

import type { Server, ServerInjectOptions, ServerInjectResponse } from '@hapi/hapi';

import { createApiKey } from '../../lib/accounts/api-keys';
import { createFamily, enableApi } from '../../lib/accounts/families';
import { configFromEnvironment, projectRoot, type Config } from '../../lib/config';
import { deployment, type DeploymentOptions } from '../../lib/deployment';
import { consoleLog, type Log } from '../../lib/logger';
import type { LivingPersonsAccess } from '../../models/api-key';

/** `sqlite` (default) or `postgres`; set by test/run-matrix.ts. */
export const testVariant = process.env.TEST_VARIANT === 'postgres' ? 'postgres' : 'sqlite';
/** Set when Redis answers: then every test server shares state through it, as instances in production do. */
export const testRedisUrl = process.env.TEST_REDIS_URL || undefined;

export const allResources = ['trees', 'persons', 'gallery', 'events', 'projects', 'finances', 'documents', 'history'];
export const allOperations = ['read', 'search', 'sort', 'filter', 'create', 'update', 'delete'];

export interface TestServerOptions {
    /** Another test server whose database (and Redis) this one shares: a second instance. */
    shareWith?: Server;
    /** A policies directory of the test's own (see copyPolicies). */
    policiesDir?: string;
    env?: Record<string, string>;
    /** Where its log lines go; by default stderr, errors only. */
    log?: Log;
    /** Auth schemes besides `api-key` that its gateway.yaml may name. */
    authSchemes?: DeploymentOptions['authSchemes'];
}

/** A fresh scratch directory, removed by nothing: the OS cleans /tmp. */
export function scratchDirectory(): string {

    return Fs.mkdtempSync(Path.join(Os.tmpdir(), 'fr-test-'));
}

/** A copy of the shipped policies that a test may edit. */
export function copyPolicies(): string {

    const directory = scratchDirectory();
    for (const file of Fs.readdirSync(Path.join(projectRoot, 'policies'))) {
        Fs.copyFileSync(Path.join(projectRoot, 'policies', file), Path.join(directory, file));
    }

    return directory;
}

/** A deployment of the whole service on the current test variant (server.inject; call server.start() for real HTTP). */
export async function testServer(options: TestServerOptions = {}): Promise<Server> {

    const shared = options.shareWith?.app.services.config;
    const dataDir = shared?.dataDir ?? scratchDirectory();
    const env: Record<string, string> = {
        PORT: '0',
        DATA_DIR: dataDir,
        WATCH_POLICIES: 'false',
        ...(testVariant === 'postgres' ? { DATABASE_URL: process.env.TEST_DATABASE_URL! } : {}),
        ...(testRedisUrl ? { REDIS_URL: testRedisUrl, REDIS_PREFIX: process.env.TEST_REDIS_PREFIX ?? 'fr-test:' } : {}),
        ...(options.policiesDir ? { POLICIES_DIR: options.policiesDir } : {}),
        ...options.env
    };

    const config: Config = configFromEnvironment(env, shared ? { databaseUrl: shared.databaseUrl, secretKey: shared.secretKey } : {});
    return deployment({ config, log: options.log ?? consoleLog(true, config.logFormat), authSchemes: options.authSchemes });
}

export interface FamilyFixture {
    familyLongId: string;
    keyId: string;
    key: string;
    /** server.inject with this family's key. */
    inject(method: string, url: string, payload?: unknown, headers?: Record<string, string>): Promise<ServerInjectResponse>;
}

/** A family with the API enabled and one key; every test makes its own, so tests never see each other's data. */
export async function familyWithKey(server: Server,
    options: { plan?: string; resources?: string[]; keyResources?: string[]; operations?: string[]; predatesWriteScopes?: boolean;
        livingPersons?: LivingPersonsAccess; } = {}): Promise<FamilyFixture> {

    const accounts = server.app.services.accounts;
    const family = await createFamily(accounts, { name: 'Test family', plan: options.plan ?? 'family' });
    if (family.plan === 'lite') {
        await family.update({ api_enabled: true, api_resources: options.resources ?? allResources });     // as if enabled before a downgrade
    }
    else {
        await enableApi(accounts, family.family_long_id, options.resources ?? allResources);
    }

    const { key, apiKey } = await createApiKey(accounts, {
        familyLongId: family.family_long_id,
        name: 'test key',
        resources: options.keyResources ?? options.resources ?? allResources,
        operations: options.operations ?? allOperations.filter((operation) => !options.predatesWriteScopes || ['read', 'search', 'sort', 'filter'].includes(operation)),
        createdBy: 'test',
        predatesWriteScopes: options.predatesWriteScopes,
        livingPersons: options.livingPersons
    });

    return keyFixture(server, family.family_long_id, apiKey.id, key);
}

/** Requests of a family as one of its keys, through server.inject(). */
export function keyFixture(server: Server, familyLongId: string, keyId: string, key: string): FamilyFixture {

    return {
        familyLongId,
        keyId,
        key,
        inject(method, url, payload, headers = {}) {

            const request: ServerInjectOptions = { method, url, headers: { authorization: `Bearer ${key}`, ...headers } };
            if (payload !== undefined) {
                request.payload = payload as object;
            }

            return server.inject(request);
        }
    };
}

/** A test server with one family of its own, for a suite whose tests share both. */
export async function testServerWithFamily(options: TestServerOptions = {}): Promise<{ server: Server; family: FamilyFixture }> {

    const server = await testServer(options);
    return { server, family: await familyWithKey(server) };
}
