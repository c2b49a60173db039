import Path from 'path';

import Hapi, { type Request, type ResponseToolkit, type Server } from '@hapi/hapi';
import Boom from '@hapi/boom';

import { gatewayPlugin } from '../gateway';
import { LocalAuthEpoch, RedisAuthEpoch, type AuthEpoch } from '../gateway/auth-epoch';
import { LastUsedTracker } from '../gateway/last-used';
import { loadGatewayConfig } from '../gateway/policies/load';
import { PolicyStore } from '../gateway/policies/policy-store';
import { gatewayPolicies } from '../gateway/policy-chain';
import { MemoryRateLimitStore } from '../gateway/rate-limit/memory-store';
import { RedisRateLimitStore } from '../gateway/rate-limit/redis-store';
import { defineModels } from '../models';
import { healthPlugin } from '../plugins/health';
import { recordsPlugin } from '../plugins/records';
import { configFromEnvironment, type Config } from './config';
import { migrate, openDatabase, transactionRunner } from './database';
import { apiError, withErrorCode } from './errors';
import { consoleLog, type Log } from './logger';
import { connectRedis } from './redis';
import { derivedKey, masterSecret } from './secrets';
import type { Services } from './services';

export interface DeploymentOptions {
    /** Listen for HTTP (`npm start`); otherwise initialise only (CLI, most tests use server.inject). */
    start?: boolean;
    config?: Config;
    log?: Log;
}

/** Turns validation failures into 400 `invalid_request` naming the problem. */
function validationFailed(_request: Request, _h: ResponseToolkit, error?: Error): never {

    throw apiError(400, 'invalid_request', error?.message ?? 'Invalid request.');
}

/** Every error response carries a stable code; unexpected ones are logged and never leak details. */
function errorCodes(log: Log) {

    return (request: Request, h: ResponseToolkit) => {

        const response = request.response;
        if (Boom.isBoom(response)) {
            if (response.output.statusCode >= 500) {
                log(['request', 'error'], `${request.method.toUpperCase()} ${request.path}: ${response.stack ?? response.message}`);
            }

            withErrorCode(response);
        }

        return h.continue;
    };
}

/** Builds the whole service from its configuration: the one composition root (npm start, CLI, tests). */
export async function deployment(options: DeploymentOptions = {}): Promise<Server> {

    const config = options.config ?? configFromEnvironment();
    const log = options.log ?? consoleLog();

    const sequelize = openDatabase(config.databaseUrl);
    await migrate(sequelize);
    const models = defineModels(sequelize);
    const master = await masterSecret(models, config.secretKey);
    const pepper = derivedKey(master, 'api-key-hash');

    const redis = config.redisUrl ? await connectRedis(config.redisUrl, log) : undefined;
    const authEpoch: AuthEpoch = redis ? new RedisAuthEpoch(redis, config.redisPrefix) : new LocalAuthEpoch(Path.join(config.dataDir, 'auth-epoch'));
    const rateLimits = redis ? new RedisRateLimitStore(redis, config.redisPrefix) : new MemoryRateLimitStore();
    const policyStore = PolicyStore.open(config.policiesDir, log);
    if (config.watchPolicies) {
        policyStore.watch();
    }

    const transaction = transactionRunner(sequelize);
    const services: Services = {
        config, log, sequelize, models, transaction, redis, policyStore, authEpoch, rateLimits,
        accounts: { models, transaction, policies: () => policyStore.current(), authEpoch, pepper }
    };

    const server = Hapi.server({
        port: config.port,
        host: config.host,
        router: { stripTrailingSlash: true },
        routes: {
            validate: { failAction: validationFailed },
            response: { emptyStatusCode: 204 }
        }
    });

    server.app.services = services;
    server.ext('onPreResponse', errorCodes(log));
    server.events.on({ name: 'request', channels: 'error' }, (request, event) => {

        log(['request', 'error'], `${request.method.toUpperCase()} ${request.path}: ${(event.error as Error | undefined)?.stack ?? ''}`);
    });

    await server.register([
        {
            plugin: gatewayPlugin,
            options: {
                config: loadGatewayConfig(config.gatewayConfig, Object.keys(gatewayPolicies)),
                models, pepper, authEpoch, policyStore, rateLimits,
                lastUsed: new LastUsedTracker(models)
            }
        },
        { plugin: healthPlugin, options: { sequelize, redis } },
        { plugin: recordsPlugin, options: { models, transaction, publicBaseUrl: config.publicBaseUrl } }
    ]);

    server.ext('onPostStop', async () => {

        policyStore.close();
        await rateLimits.close();
        await redis?.quit();
        await sequelize.close();
    });

    if (options.start) {
        await server.start();
    }
    else {
        await server.initialize();
    }

    return server;
}
