import Path from 'path';

import Hapi, { type Request, type ResponseObject, type ResponseToolkit, type Server } from '@hapi/hapi';
import Boom from '@hapi/boom';
import type { Sequelize } from 'sequelize';

import { gatewayPlugin, type GatewayOptions } from '../gateway';
import { RedisAuthEpoch, type AuthEpoch } from '../gateway/auth-epoch';
import type { AuthScheme } from '../gateway/auth-scheme';
import { LocalAuthEpoch } from '../gateway/local-auth-epoch';
import { LastUsedTracker } from '../gateway/last-used';
import { GatewayConfigStore, type GatewayConfig, type GatewayParts, type RouteGroup } from '../gateway/policies/gateway-file';
import { plansFile } from '../gateway/policies/plans';
import type { PolicyFile } from '../gateway/policies/policy-file';
import { PolicyStore } from '../gateway/policies/policy-store';
import { rateLimitsFile } from '../gateway/policies/rate-limits';
import { scopesFile } from '../gateway/policies/scopes';
import { usageFile } from '../gateway/policies/usage';
import type { WatchedFiles } from '../gateway/policies/watched-files';
import { gatewayPolicies } from '../gateway/policy-chain';
import { MemoryRateLimitStore } from '../gateway/rate-limit/memory-store';
import { RedisRateLimitStore } from '../gateway/rate-limit/redis-store';
import { groupOfPath } from '../gateway/route-groups';
import { UsageMeter } from '../gateway/usage-meter';
import { apiKeyScheme } from '../gateway/verify-api-key';
import { deviceTokenScheme } from '../gateway/verify-device-token';
import { defineModels, type Models } from '../models';
import { deviceAuthPlugin } from '../plugins/device-auth';
import { docsPlugin, documentPathOf } from '../plugins/docs';
import { filesPlugin } from '../plugins/files';
import { filesPolicyFile } from '../plugins/files/policy';
import { formatsPlugin } from '../plugins/formats';
import { fallbackFontProblem } from '../plugins/formats/pdf-fonts';
import { healthPlugin } from '../plugins/health';
import { messagingPlugin } from '../plugins/messaging';
import { metricsPlugin } from '../plugins/metrics';
import { recordsPlugin } from '../plugins/records';
import { recordsPolicyFile } from '../plugins/records/policy';
import { sitePlugin } from '../plugins/site';
import { sitePolicyFile } from '../plugins/site/policy';
import { streamPlugin } from '../plugins/stream';
import { streamPolicyFile } from '../plugins/stream/policy';
import { webhooksPlugin } from '../plugins/webhooks';
import { webhooksPolicyFile } from '../plugins/webhooks/policy';
import { messagingPolicyFile } from './accounts/messaging-policy';
import { privacyPolicyFile } from './privacy/living-persons';
import { LocalChangeBus, RedisChangeBus, type ChangeBus } from './change-bus';
import type { MessagingBatch, MessagingBus } from './messaging/changes';
import { messageUploads } from './messaging/uploads';
import { decorateClientAddress } from './client-address';
import { versionAnswers, type VersionAnswers } from './api-versions';
import { answerClientErrors } from './client-errors';
import { ConfigError, configFromEnvironment, type Config } from './config';
import { openMigratedDatabase, transactionRunner } from './database';
import { databaseUnavailable } from './database-unavailable';
import { answerAsServiceSays, apiError, failedValidationPart, ServiceError, withErrorCode } from './errors';
import { checkFilesDirectory } from './files-directory';
import { consoleLog, requestLogFields, type Log } from './logger';
import { refuseMalformedQuery, repeatedParameterMessage, repeatedQueryParameter } from './query-string';
import { closeRedis, connectRedis } from './redis';
import { RedisOutage } from './redis-outage';
import { assertBodiesChecked, refuseUnreadableBody } from './request-bodies';
import { decorateRequestId } from './request-id';
import { derivedKey, masterSecret } from './secrets';
import { becomeServiceUnavailable } from './service-unavailable';
import type { Services } from './services';
import { LocalDiskStorage } from './storage/local-disk';
import { LocalDiskUploadFiles } from './storage/upload-files';
import { TrustedProxies } from './trusted-proxies';
import { unroutedAnswer } from './unrouted';

export interface DeploymentOptions {
    /** Listen for HTTP (`npm start`); otherwise initialise only (CLI, most tests use server.inject). */
    start?: boolean;
    config?: Config;
    log?: Log;
    /** Start even when Redis does not answer (`connectRedis()`'s `mayBeDown`): the CLI's changes of access. */
    redisMayBeDown?: boolean;
    /** Auth schemes besides `api-key`, by the name gateway.yaml gives them (a test's second scheme). */
    authSchemes?: Readonly<Record<string, AuthScheme>>;
}

/** The files of the policies directory, each declared by its owner, in the order they refer to each other (plans.yaml to rate-limits.yaml). */
export const policyFiles: readonly PolicyFile[] = [
    rateLimitsFile, scopesFile, plansFile, filesPolicyFile, usageFile, recordsPolicyFile, sitePolicyFile, webhooksPolicyFile, streamPolicyFile,
    messagingPolicyFile, privacyPolicyFile
];

/** Turns validation failures into 400 `invalid_request` naming the problem. */
function validationFailed(request: Request, _h: ResponseToolkit, error?: Error): never {

    const repeated = failedValidationPart(error) === 'query' ? repeatedQueryParameter(request.query) : undefined;
    throw apiError(400, 'invalid_request', repeated === undefined ? error?.message ?? 'Invalid request.' : repeatedParameterMessage(repeated));
}

/** hapi's 415 says only "Unsupported Media Type": name the type the route takes instead. */
function sayWhichMediaType(request: Request, error: Boom.Boom): void {

    const allowed = request.route.settings.payload?.allow;
    if (error.output.statusCode === 415 && error.output.payload.message === 'Unsupported Media Type' && allowed) {
        const types = [allowed].flat();
        error.output.payload.message = `This route takes bodies of type ${types.join(' or ')}: send one with Content-Type: ${types[0]}.`;
    }
}

/**
 * hapi's 400 for a body it cannot parse says "Invalid request payload JSON format", for a valid JSON
 * body with a `__proto__` key too (which it refuses): say where the JSON breaks, or which key it was.
 */
function sayWhatIsWrongWithTheJson(error: Boom.Boom): void {

    if (error.output.statusCode !== 400 || error.output.payload.message !== 'Invalid request payload JSON format' || !(error.data instanceof SyntaxError)) {
        return;
    }

    error.output.payload.message = error.data.message === 'Object contains forbidden prototype property'
        ? 'The body holds a "__proto__" key, which the service refuses: no field has that name.'
        : `The body is not valid JSON: ${error.data.message}.`;
}

/** Logs a failure of `request`, naming its id (X-Request-Id, which a client quotes), method and path in the line; a JSON line has them as fields too. */
function logRequestError(log: Log, request: Request, detail: string, tags = ['request', 'error']): void {

    const fields = requestLogFields(request);
    log(tags, `${fields.request_id} ${fields.method} ${fields.path}: ${detail}`, fields);
}

/**
 * Every error response carries a stable code, in the shape of the version of the API it answers (answerAsVersion, which
 * also gives a deprecated version's headers to every answer); unexpected ones are logged and never leak details, but tell
 * the client the request id to quote, the one their log line names; one no route gave says why. A failure
 * because the database does not answer is no bug: a 503 to retry, logged in one line without a stack,
 * since during an outage every request fails so.
 */
function errorCodes(log: Log, loggedErrors: WeakSet<Error>, referenceOf: (path: string) => string | undefined, answerAsVersion: VersionAnswers) {

    return (request: Request, h: ResponseToolkit) => {

        const response = request.response;
        if (Boom.isBoom(response)) {
            const unrouted = unroutedAnswer(request, response, referenceOf);
            if (unrouted) {
                answerAsVersion(request, unrouted);
                return unrouted;
            }

            if (response instanceof ServiceError) {
                answerAsServiceSays(response);
            }

            // A 503 service_unavailable made as such (a change stream that cannot listen) says what is down and when to retry: no bug to report.
            if (response.output.statusCode >= 500 && response.output.payload.code !== 'service_unavailable') {
                const unavailable = databaseUnavailable(response);
                if (unavailable) {
                    logRequestError(log, request, `503, the database is ${unavailable.reason}: ${unavailable.message}`, ['request', 'unavailable', 'warn']);
                    becomeServiceUnavailable(response);
                }
                else {
                    logRequestError(log, request, response.stack ?? response.message);
                    loggedErrors.add(response);
                    response.output.payload.message = `${response.output.payload.message.replace(/\.$/, '')}. Quote request id ${request.requestId} when reporting it.`;
                }
            }

            sayWhichMediaType(request, response);
            sayWhatIsWrongWithTheJson(response);
            withErrorCode(response);
        }

        answerAsVersion(request, response as Boom.Boom | ResponseObject);
        return h.continue;
    };
}

/** The plugins that serve a version of the family API, in the order a route group's `plugins` (gateway.yaml) are registered. */
const apiPluginNames = ['records', 'files', 'stream', 'docs', 'messaging'] as const;
type ApiPluginName = typeof apiPluginNames[number];

/** The route groups that name plugins (gateway.yaml), each checked: plugins this deployment knows, under one path. */
function groupsServedByPlugins(gatewayConfig: GatewayConfig): RouteGroup[] {

    const served = gatewayConfig.routeGroups.filter((group) => group.plugins.length > 0);
    for (const group of served) {
        const unknown = group.plugins.filter((name) => !(apiPluginNames as readonly string[]).includes(name));
        if (unknown.length > 0) {
            throw new ConfigError(`gateway.yaml: route group "${group.name}" names unknown plugins ${unknown.join(', ')} (known: ${apiPluginNames.join(', ')})`);
        }

        if (group.paths.length !== 1) {
            throw new ConfigError(`gateway.yaml: route group "${group.name}" names plugins, which are registered under one path: it has ${group.paths.length}`);
        }
    }

    return served;
}

/** Where a client finds the API's paths: the reference of the route group `path` lies under, else of the first one with a reference. */
function referenceFinder(gatewayConfig: GatewayConfig): (path: string) => string | undefined {

    const documented = { routeGroups: gatewayConfig.routeGroups.filter((group) => group.plugins.includes('docs')) };
    return (path) => {

        const group = groupOfPath(path, documented) ?? documented.routeGroups[0];
        return group && documentPathOf(group.paths[0]);
    };
}

/** Where people read the reference of `group`: the first documented group's is /docs, another's /docs<prefix>. */
function referencePagePath(gatewayConfig: GatewayConfig, group: RouteGroup): string {

    const firstDocumented = gatewayConfig.routeGroups.find((candidate) => candidate.plugins.includes('docs'));
    return group === firstDocumented ? '/docs' : `/docs${group.paths[0]}`;
}

/** The reference page of the route group serving the version named `name`, whose errors it describes. */
function referencePageOfVersion(gatewayConfig: GatewayConfig, name: string): string {

    return referencePagePath(gatewayConfig, gatewayConfig.routeGroups.find((group) => group.version?.name === name)!);
}

/** A PDF_FALLBACK_FONTS file that is missing or no font stops start-up, not the first PDF export that needs it. */
function checkFallbackFonts(paths: readonly string[]): void {

    const problem = paths.map(fallbackFontProblem).find(Boolean);
    if (problem) {
        throw new ConfigError(`Invalid configuration: PDF_FALLBACK_FONTS ${problem}`);
    }
}

/** The database, migrated, and the master secret it is used with; closed again when either fails (a SECRET_KEY not the database's). */
async function openedDatabase(config: Config): Promise<{ sequelize: Sequelize; models: Models; master: Buffer }> {

    const sequelize = await openMigratedDatabase(config.databaseUrl, { queryTimeoutSeconds: config.databaseQueryTimeoutSeconds, poolMax: config.databasePoolMax });
    try {
        const models = defineModels(sequelize);
        return { sequelize, models, master: await masterSecret(models, config.secretKey) };
    }
    catch (error) {
        await sequelize.close();
        throw error;
    }
}

/** Builds the whole service from its configuration: the one composition root (npm start, CLI, tests). */
export async function deployment(options: DeploymentOptions = {}): Promise<Server> {

    const config = options.config ?? configFromEnvironment();
    const log = options.log ?? consoleLog(false, config.logFormat);
    const trustedProxies = new TrustedProxies(config.trustedProxies);
    if (options.start) {
        checkFilesDirectory(config.filesDir);
        checkFallbackFonts(config.pdfFallbackFonts);
    }

    const { sequelize, models, master } = await openedDatabase(config);
    const pepper = derivedKey(master, 'api-key-hash');

    const redis = config.redisUrl ? await connectRedis(config.redisUrl, log, { mayBeDown: options.redisMayBeDown }) : undefined;
    const redisOutage = redis && new RedisOutage(redis, log);
    const authEpoch: AuthEpoch = redis ? new RedisAuthEpoch(redis, config.redisPrefix, log, redisOutage!) : new LocalAuthEpoch(Path.join(config.dataDir, 'epoch', 'auth-epoch'));
    const rateLimits = redis ? new RedisRateLimitStore(redis, config.redisPrefix, redisOutage!) : new MemoryRateLimitStore();
    const changeBus: ChangeBus = redis ? new RedisChangeBus(redis, config.redisPrefix, log) : new LocalChangeBus(log);
    const messagingBus: MessagingBus = redis ? new RedisChangeBus<MessagingBatch>(redis, config.redisPrefix, log, 'messaging-changes') : new LocalChangeBus<MessagingBatch>(log);
    const policyStore = PolicyStore.open(config.policiesDir, log, policyFiles);
    const follow = (store: Pick<WatchedFiles<unknown>, 'watch' | 'reloadOnSighup'>) => {

        if (config.watchPolicies) {
            store.watch();
        }
        else if (options.start) {
            // WATCH_POLICIES=false turns off the file watch only: a running service still reloads on SIGHUP, which
            // would otherwise end it (Node's default for a signal nobody listens to).
            store.reloadOnSighup();
        }
    };

    follow(policyStore);

    const transaction = transactionRunner(sequelize);
    const usageMeter = new UsageMeter({ models, sequelize, transaction, policyStore, log });
    const uploadFiles = new LocalDiskUploadFiles(config.filesDir);
    const services: Services = {
        config, log, sequelize, models, transaction, redis, redisOutage, policyStore, authEpoch, rateLimits, usageMeter, changeBus, uploadFiles,
        accounts: {
            models, transaction, policies: () => policyStore.current(), authEpoch, pepper,
            deviceTokenKeys: { hash: derivedKey(master, 'device-token-hash'), rotation: derivedKey(master, 'device-token-rotation') }
        },
        messaging: { models, transaction, bus: messagingBus, policyStore, uploads: messageUploads({ models, files: uploadFiles, log, policies: () => policyStore.current() }) }
    };

    const server = Hapi.server({
        port: config.port,
        host: config.host,
        router: { stripTrailingSlash: true },
        routes: {
            validate: { failAction: validationFailed },
            // Family records are personal data: no cache, a browser's disk included, keeps an answer unless its route says so (the reference, the site's assets, signed files).
            cache: { otherwise: 'no-store' },
            // No Range through hapi: it would answer 206 to any JSON answer, and 416 as an error without a code or
            // the RateLimit headers, none of it in the reference. The one route that takes Range (GET /files/{token}) reads it itself.
            response: { emptyStatusCode: 204, ranges: false }
        },
        // A compressed event stream would hold events back until the compressor's buffer fills.
        mime: { override: { 'text/event-stream': { compressible: false } } }
    });

    server.app.services = services;
    answerClientErrors(server);
    decorateClientAddress(server, trustedProxies);
    decorateRequestId(server, trustedProxies);
    // The body checks that must come before hapi reads a body are steps of the routes that take one (withBodyChecks()).
    server.ext('onPreStart', () => assertBodiesChecked(server));
    // After authentication, so that these refusals count against the rate limit like any bad request.
    server.ext('onPostAuth', (request, h) => {

        refuseMalformedQuery(request);
        refuseUnreadableBody(request);
        return h.continue;
    });
    // Where a 404 points a client: known once gateway.yaml is open (below), whose routing changes only with a restart.
    let referenceOf: (path: string) => string | undefined = () => undefined;
    // hapi tells of a 500 again when the request ends: logged here only when errorCodes() did not see it (a body that could not be made, or broke while being sent).
    const loggedErrors = new WeakSet<Error>();
    // Known, like referenceOf, once gateway.yaml is open; its versions' status is read per request, so that a reload deprecates one.
    let gatewayNow: () => GatewayConfig = () => ({ routeGroups: [] });
    const answerAsVersion = versionAnswers(() => gatewayNow(), (version, code) => `${config.publicBaseUrl}${referencePageOfVersion(gatewayNow(), version.name)}#error-${code}`);
    server.ext('onPreResponse', errorCodes(log, loggedErrors, (path) => referenceOf(path), answerAsVersion));
    server.events.on({ name: 'request', channels: 'error' }, (request, event) => {

        const error = event.error as Error | undefined;
        if (!error || !loggedErrors.has(error)) {
            logRequestError(log, request, error?.stack ?? '');
        }
    });

    // Closes what was opened above, after the plugins have let go of it (the records plugin's prepared statements).
    let gatewayConfig: GatewayConfigStore | undefined;
    const closeServices = async () => {

        gatewayConfig?.close();
        policyStore.close();
        await rateLimits.close();
        await changeBus.close();
        await messagingBus.close();
        await authEpoch.close();
        if (redis) {
            await closeRedis(redis);
        }

        await sequelize.close();
    };

    // Should the service not start (a bad gateway.yaml, a port in use), what it started is stopped, so the process can end.
    try {
        const lastUsed = new LastUsedTracker(models, log);
        const authSchemes = {
            'api-key': apiKeyScheme({ models, pepper, authEpoch, lastUsed }),
            'device-token': deviceTokenScheme({ models, keys: services.accounts.deviceTokenKeys, authEpoch }),
            ...options.authSchemes
        };
        const parts: GatewayParts = { policies: gatewayPolicies, authSchemes };
        gatewayConfig = GatewayConfigStore.open(config.gatewayConfig, log, parts, policyStore);
        follow(gatewayConfig);
        referenceOf = referenceFinder(gatewayConfig.current());
        gatewayNow = () => gatewayConfig!.current();
        await registerPlugins(server, services, master, { configStore: gatewayConfig, parts, lastUsed, policyStore, rateLimits, usageMeter });
    }
    catch (error) {
        await server.stop();
        await closeServices();
        throw error;
    }

    server.ext('onPostStop', closeServices);
    try {
        await (options.start ? server.start() : server.initialize());
    }
    catch (error) {
        await server.stop();
        throw error;
    }

    return server;
}

/**
 * The plugins a route group names in gateway.yaml, registered for it: under its path (hapi's `routes.prefix`,
 * or a `prefix` option for a plugin with routes outside it) and with its auth. A second version of the API
 * is a second group, hence a second registration of each.
 */
async function registerApiPlugins(server: Server, services: Services, master: Buffer, gateway: GatewayOptions): Promise<void> {

    const { config, log, models, transaction, policyStore, authEpoch, changeBus } = services;
    const { publicBaseUrl } = config;
    const storage = new LocalDiskStorage(config.filesDir);
    const signingKey = derivedKey(master, 'signed-file-urls');
    const gatewayConfig = gateway.configStore.current();
    const served = groupsServedByPlugins(gatewayConfig);
    const versions = served.filter((group) => group.plugins.includes('docs') && group.version)
        .map((group) => ({ name: group.version!.name, status: group.version!.status, pagePath: referencePagePath(gatewayConfig, group) }));
    for (const group of served) {
        const routeGroup = group.name;
        const [prefix] = group.paths;
        const pagePath = referencePagePath(gatewayConfig, group);
        const register: Record<ApiPluginName, () => Promise<void>> = {
            records: () => server.register({ plugin: recordsPlugin, options: { routeGroup, models, transaction, changeBus, publicBaseUrl, policyStore, log }, routes: { prefix } }),
            // After records: it adds the upload routes and extends records' serialisation and deletion.
            files: () => server.register({ plugin: filesPlugin, options: { routeGroup, prefix, models, transaction, log, storage, signingKey, publicBaseUrl, policyStore } }),
            stream: () => server.register({ plugin: streamPlugin, options: { routeGroup, models, changeBus, authEpoch, policyStore, log }, routes: { prefix } }),
            // Generates the reference from every route at start-up, so it may come in any order. The first reference's page is /docs.
            docs: () => server.register({
                plugin: docsPlugin,
                options: { gateway: gatewayConfig, authSchemes: gateway.parts.authSchemes, routeGroup, prefix, pagePath, versions, policyStore, publicBaseUrl, log }
            }),
            messaging: () => server.register({
                plugin: messagingPlugin,
                options: { routeGroup, models, transaction, files: services.uploadFiles, policyStore, redis: services.redis, redisPrefix: config.redisPrefix, publicBaseUrl, log },
                routes: { prefix }
            })
        };
        for (const name of apiPluginNames.filter((known) => group.plugins.includes(known))) {
            await register[name]();
        }
    }
}

/** Every plugin of the service, in the order their dependencies need. */
async function registerPlugins(server: Server, services: Services, master: Buffer, gateway: GatewayOptions): Promise<void> {

    const { config, log, sequelize, models, transaction, redis, redisOutage, policyStore, rateLimits, changeBus } = services;
    await server.register([
        { plugin: gatewayPlugin, options: gateway },
        { plugin: healthPlugin, options: { sequelize, redis } },
        // Before records: the records routes accept the export formats the formats plugin offers.
        { plugin: formatsPlugin, options: { log, pdfFallbackFonts: config.pdfFallbackFonts } }
    ]);
    await registerApiPlugins(server, services, master, gateway);
    await server.register([
        // Provides the `site-session` auth strategy and CSRF protection: before any plugin whose routes use them.
        {
            plugin: sitePlugin,
            options: {
                models, log, rateLimits,
                accounts: services.accounts,
                messaging: services.messaging,
                uploadFiles: services.uploadFiles,
                policies: () => policyStore.current(),
                cookiePassword: derivedKey(master, 'site-session-cookie').toString('hex'),
                twoFactorKeys: { totpSecrets: derivedKey(master, 'totp-secrets'), recoveryCodes: derivedKey(master, 'recovery-codes') },
                publicBaseUrl: config.publicBaseUrl
            }
        },
        // The OAuth endpoints of connected devices, outside every route group; the site has their /device page.
        { plugin: deviceAuthPlugin, options: { accounts: services.accounts, rateLimits, publicBaseUrl: config.publicBaseUrl } },
        // After site: its JSON routes for family managers use the `site-session` strategy.
        {
            plugin: webhooksPlugin,
            options: { models, sequelize, transaction, log, policyStore, changeBus, secretKey: derivedKey(master, 'webhook-secrets') }
        },
        // Only when METRICS_PORT asks for it: otherwise not a listener more per request.
        ...config.metrics ? [{ plugin: metricsPlugin, options: { ...config.metrics, models, log, redisOutage } }] : []
    ]);
}
