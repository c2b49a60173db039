import Fs from 'fs';
import Path from 'path';
import Joi from 'joi';

import type { LogFormat } from './logger';
import { trustedProxyEntries, trustedProxyProblem } from './trusted-proxies';

/** Where the project's own files live, whether running from source or from dist/. */
export const projectRoot = Path.resolve(__dirname, __dirname.includes(`${Path.sep}dist${Path.sep}`) || __dirname.endsWith(`${Path.sep}dist`) ? '../..' : '..');

export interface Config {
    port: number;
    host: string;
    databaseUrl: string;
    /** DATABASE_URL unset: the SQLite file under DATA_DIR of a first `npm start`, where an empty database gets a demo family. */
    embeddedDatabase: boolean;
    /** PostgreSQL: how long a query may go unanswered before it fails and its connection is dropped; 0, for ever. */
    databaseQueryTimeoutSeconds: number;
    /** PostgreSQL: the most connections one instance holds (every request, background job and list read shares them). */
    databasePoolMax: number;
    redisUrl?: string;
    /** Prefix of every Redis key this deployment writes, so several deployments can share one Redis. */
    redisPrefix: string;
    /** Local state of the embedded default: the SQLite file, the auth-epoch marker. */
    dataDir: string;
    /** Where LocalDiskStorage keeps uploaded files (content-addressed blobs). */
    filesDir: string;
    policiesDir: string;
    gatewayConfig: string;
    publicBaseUrl: string;
    /** Proxies (addresses, CIDR ranges) whose X-Forwarded-For names the client; none by default. */
    trustedProxies: string[];
    /**
     * Master secret from which the API-key hash pepper and URL-signing keys are derived.
     * Unset on the embedded default: one is generated once and kept in the database.
     */
    secretKey?: string;
    /**
     * Font files PDF exports draw with where DejaVu Sans has no glyph (Indic scripts, Thai, Ethiopic, Chinese, Japanese,
     * Korean…), tried in order after the built-in emoji font.
     */
    pdfFallbackFonts: string[];
    /** Watch policy files and reload on change (off in most tests: they reload explicitly). */
    watchPolicies: boolean;
    /** How log lines are written: `text` lines, or one JSON object a line for log shippers. */
    logFormat: LogFormat;
    /** Where Prometheus metrics are served (`GET /metrics`, a listener of their own); unset: nowhere. */
    metrics?: { host: string; port: number };
}

/** A setting of the environment is wrong; the message names it. */
export class ConfigError extends Error {

    override readonly name = 'ConfigError';
}

/** PostgreSQL connections an instance holds when DATABASE_POOL_MAX is unset. */
export const defaultDatabasePoolMax = 10;

const schema = Joi.object({
    PORT: Joi.number().integer().min(0).max(65535).default(3000),
    HOST: Joi.string().hostname().default('127.0.0.1').messages({ 'string.hostname': '"HOST" must be a host name or an IP address to listen on' }),
    DATABASE_URL: Joi.string().pattern(/^(sqlite:|postgres(ql)?:\/\/)/).message('DATABASE_URL must start with sqlite: or postgres://'),
    DATABASE_QUERY_TIMEOUT: Joi.number().min(0).max(86_400).default(30),
    DATABASE_POOL_MAX: Joi.number().integer().min(1).max(1000).default(defaultDatabasePoolMax),
    REDIS_URL: Joi.string().uri({ scheme: ['redis', 'rediss'] }),
    REDIS_PREFIX: Joi.string().default('fr:'),
    DATA_DIR: Joi.string(),
    FILES_DIR: Joi.string(),
    POLICIES_DIR: Joi.string(),
    GATEWAY_CONFIG: Joi.string(),
    PUBLIC_BASE_URL: Joi.string().uri({ scheme: ['http', 'https'] }),
    TRUSTED_PROXIES: Joi.string().allow('').default('').custom(validTrustedProxies).messages({ 'any.custom': '{{#label}} {{#error.message}}' }),
    SECRET_KEY: Joi.string().min(32),
    PDF_FALLBACK_FONTS: Joi.string().allow(''),
    WATCH_POLICIES: Joi.boolean().default(true),
    LOG_FORMAT: Joi.string().valid('text', 'json').default('text'),
    METRICS_PORT: Joi.number().integer().min(0).max(65535),
    METRICS_HOST: Joi.string().hostname().default('127.0.0.1').messages({ 'string.hostname': '"METRICS_HOST" must be a host name or an IP address to listen on' })
}).unknown(true);

/**
 * Where distributions install Noto Sans CJK: Debian and Ubuntu (fonts-noto-cjk), Alpine
 * (font-noto-cjk), Arch (noto-fonts-cjk), Fedora (google-noto-sans-cjk-ttc-fonts).
 */
export const notoSansCjkPaths: readonly string[] = [
    '/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc',
    '/usr/share/fonts/noto/NotoSansCJK-Regular.ttc',
    '/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc',
    '/usr/share/fonts/google-noto-cjk/NotoSansCJK-Regular.ttc'
];

/**
 * The living scripts DejaVu Sans has no glyphs for, whose Noto Sans fonts Debian and Ubuntu install
 * with fonts-noto-core (Alpine font-noto, Arch noto-fonts, Fedora google-noto-sans-*-fonts), each in
 * one of these folders. fontkit shapes them (Indic conjuncts and vowel signs, Thai, Khmer, Myanmar…).
 */
const notoSansScripts = ['Devanagari', 'Bengali', 'Gurmukhi', 'Gujarati', 'Oriya', 'Tamil', 'Telugu', 'Kannada', 'Malayalam', 'Sinhala',
    'Thai', 'Lao', 'Khmer', 'Myanmar', 'Ethiopic', 'Syriac', 'Thaana', 'Cherokee', 'CanadianAboriginal'];
const notoSansFolders = ['/usr/share/fonts/truetype/noto', '/usr/share/fonts/noto', '/usr/share/fonts/google-noto'];

/**
 * The fallback fonts without PDF_FALLBACK_FONTS: one font per group, the first of its places that
 * exists. The scripts' fonts first, Noto Sans CJK last: each is read on first need, and a Hindi name
 * should not read the 20 MB CJK collection on its way.
 */
export const usualFallbackFonts: readonly (readonly string[])[] = [
    ...notoSansScripts.map((script) => notoSansFolders.map((folder) => Path.join(folder, `NotoSans${script}-Regular.ttf`))),
    notoSansCjkPaths
];

function fallbackFonts(setting: string | undefined): string[] {

    if (setting === undefined) {
        return usualFallbackFonts.map((places) => places.find((path) => Fs.existsSync(path))).filter((path): path is string => path !== undefined);
    }

    return setting.split(',').map((path) => path.trim()).filter(Boolean).map((path) => Path.resolve(path));
}

/**
 * Links without PUBLIC_BASE_URL: the listening address, except that a wildcard (0.0.0.0, ::),
 * which no client can reach, becomes localhost, and an IPv6 address takes its brackets.
 */
function defaultPublicBaseUrl(host: string, port: number): string {

    const reachable = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
    return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

function validTrustedProxies(value: string): string {

    const problem = trustedProxyEntries(value).map(trustedProxyProblem).find(Boolean);
    if (problem) {
        throw new Error(`${problem} (give IP addresses or CIDR ranges separated by commas, such as 127.0.0.1,10.0.0.0/8)`);
    }

    return value;
}

/** Reads the configuration of DESIGN.md §3 from the environment; a bad value stops start-up with its name. */
export function configFromEnvironment(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {

    const { value, error } = schema.validate(env, { abortEarly: false });
    if (error) {
        throw new ConfigError(`Invalid configuration: ${error.details.map((detail) => detail.message).join('; ')}`);
    }

    const port: number = value.PORT;
    const host: string = value.HOST;
    const dataDir = Path.resolve(value.DATA_DIR ?? Path.join(projectRoot, 'data'));
    const config: Config = {
        port,
        host,
        databaseUrl: value.DATABASE_URL ?? `sqlite:${Path.join(dataDir, 'family-records.sqlite')}`,
        embeddedDatabase: value.DATABASE_URL === undefined,
        databaseQueryTimeoutSeconds: value.DATABASE_QUERY_TIMEOUT,
        databasePoolMax: value.DATABASE_POOL_MAX,
        redisUrl: value.REDIS_URL,
        redisPrefix: value.REDIS_PREFIX,
        dataDir,
        filesDir: Path.resolve(value.FILES_DIR ?? Path.join(dataDir, 'files')),
        policiesDir: Path.resolve(value.POLICIES_DIR ?? Path.join(projectRoot, 'policies')),
        gatewayConfig: Path.resolve(value.GATEWAY_CONFIG ?? Path.join(projectRoot, 'gateway', 'gateway.yaml')),
        publicBaseUrl: (value.PUBLIC_BASE_URL ?? defaultPublicBaseUrl(host, port)).replace(/\/$/, ''),
        trustedProxies: trustedProxyEntries(value.TRUSTED_PROXIES),
        secretKey: value.SECRET_KEY,
        pdfFallbackFonts: fallbackFonts(value.PDF_FALLBACK_FONTS),
        watchPolicies: value.WATCH_POLICIES,
        logFormat: value.LOG_FORMAT,
        metrics: value.METRICS_PORT === undefined ? undefined : { host: value.METRICS_HOST, port: value.METRICS_PORT }
    };

    return { ...config, ...overrides };
}
