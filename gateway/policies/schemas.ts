import Joi from 'joi';
import IpAddr from 'ipaddr.js';
import Cron from 'node-cron';

import { authSchemeNames } from '../auth-scheme-names';
import type { FileSignature, FilesPolicy, GatewayConfig, PlanPolicy, RateLimitPreset, RecordsPolicy, ScopesPolicy, SitePolicy, StreamPolicy, UsagePolicy, WebhooksPolicy } from './types';

/*
 * The shape of each data file, and the names it may refer to. Unknown keys are errors (joi's
 * default), so a typo is refused rather than silently ignored; a new setting is added here first.
 * The `_format_version` envelope is checked by data-file.ts.
 *
 * Names declared in another file come in through the validation context (`$name`);
 * names declared in the same file are references to it (`/operations`).
 */

/** What each file holds once validated (before load.ts indexes it by name). */
export interface RateLimitsDocument { presets: RateLimitPreset[] }
export interface PlansDocument { plans: PlanPolicy[] }
export type ScopesDocument = ScopesPolicy;
export type FilesDocument = FilesPolicy;
export type UsageDocument = UsagePolicy;
export type RecordsDocument = RecordsPolicy;
export type SiteDocument = SitePolicy;
export type WebhooksDocument = WebhooksPolicy;
export type StreamDocument = StreamPolicy;
export interface GatewayDocument { route_groups: GatewayConfig['routeGroups'] }

/** Context of plansSchema: the presets of rate-limits.yaml, and the plans a family can be on (models/family.ts). */
export type PlansContext = { rateLimitPresetNames: string[]; familyPlanNames: readonly string[] };
/** Context of filesSchema: the resources whose records carry a file (models/resources). */
export type FilesContext = { fileResourceNames: readonly string[] };
/** Context of gatewaySchema: the policies the gateway can run. */
export type GatewayContext = { knownPolicyNames: readonly string[] };

type Entity = Record<string, unknown>;

/** A list of named entities, each name used once. */
function namedList(entity: Joi.ObjectSchema): Joi.ArraySchema {

    return Joi.array().items(entity).unique('name')
        .messages({ 'array.unique': 'the name "{#value.name}" is already used earlier in this list' });
}

/** A list of strings, each used once. */
function uniqueStrings(item: Joi.StringSchema = Joi.string()): Joi.ArraySchema {

    return Joi.array().items(item).unique().messages({ 'array.unique': '"{#value}" is already listed' });
}

/** The names of a list's entities that pass `keep`. The list may itself be invalid: joi reports that on its own. */
function namesIn(list: unknown, keep: (entity: Entity) => boolean = () => true): unknown[] {

    return Array.isArray(list) ? list.filter((entity: Entity | null) => entity !== null && typeof entity === 'object' && keep(entity)).map((entity: Entity) => entity.name) : [];
}

/*
 * A window lasts at most a day, the longest API gateways commonly offer per policy: each counter is kept, in memory
 * or in Redis, for its whole window (past about 10^14 s Redis even refuses the expiry, and every request fails).
 * A limit has at most 15 digits, the largest integer RateLimit-Policy's `q` can carry (RFC 9651).
 */
const windowSchema = Joi.object({
    limit: Joi.number().integer().min(1).max(999_999_999_999_999).required(),
    window_seconds: Joi.number().integer().min(1).max(86_400).required()
});

export const rateLimitsSchema = Joi.object({
    presets: namedList(Joi.object({
        name: Joi.string().required(),
        per_key: windowSchema.required(),
        per_family: windowSchema.required()
    })).min(1).required()
});

export const plansSchema = Joi.object({
    plans: namedList(Joi.object({
        // A family's plan is one of the names models/family.ts knows: a plan of another name could never be used.
        name: Joi.string().required().valid(Joi.in('$familyPlanNames'))
            .messages({ 'any.only': '"{#value}" is not a plan a family can be on; those are {$familyPlanNames}' }),
        label: Joi.string().required(),
        api_access: Joi.boolean().required(),
        // Upgrading must actually give API access.
        upgrade_to: Joi.string().valid(Joi.in('/plans', { adjust: (plans) => namesIn(plans, (plan) => plan.api_access === true) }))
            .messages({ 'any.only': '"{#value}" is not a plan with api_access: true' }),
        rate_limit: Joi.string().required().valid(Joi.in('$rateLimitPresetNames'))
            .messages({ 'any.only': '"{#value}" is not a preset in rate-limits.yaml' }),
        // Both or neither: a plan without them accepts no uploads.
        max_upload_bytes: Joi.number().integer().min(0).max(Joi.ref('storage_quota_bytes'))
            .messages({ 'number.max': 'must not be more than storage_quota_bytes' }),
        storage_quota_bytes: Joi.number().integer().min(0),
        // Absent: the plan offers no webhooks.
        webhook_endpoints: Joi.number().integer().min(0)
    }).and('max_upload_bytes', 'storage_quota_bytes')).min(1).required().custom((list: { name: string }[], helpers) => {

        // Families are on these plans: a reload that dropped one would leave their keys without a plan.
        const missing = (helpers.prefs.context as PlansContext).familyPlanNames.filter((name) => !list.some((plan) => plan.name === name));
        return missing.length === 0 ? list : helpers.error('plans.missing', { missing: missing.join(', ') });
    }).messages({ 'plans.missing': 'must list every plan a family can be on; missing: {#missing}' })
});

const declaredOperation = Joi.string().valid(Joi.in('/operations', { adjust: (operations) => namesIn(operations) }))
    .messages({ 'any.only': '"{#value}" is not an operation declared in operations' });

/** Operations a key may hold without an explicit grant: declared and not `write`. */
function readOnlyOperations(why: string): Joi.ArraySchema {

    return uniqueStrings(Joi.string().valid(Joi.in('/operations', { adjust: (operations) => namesIn(operations, (operation) => operation.write !== true) }))
        .messages({ 'any.only': `"{#value}" is not a declared read-only operation (${why})` }));
}

export const scopesSchema = Joi.object({
    resources: uniqueStrings().min(1).required(),
    aggregate_resource: Joi.string().required(),
    operations: namedList(Joi.object({
        name: Joi.string().required(),
        description: Joi.string().required(),
        write: Joi.boolean().default(false)
    })).min(1).required(),
    query_operations: Joi.array().items(Joi.object({
        parameter: Joi.string(),
        parameter_prefix: Joi.string(),
        operation: declaredOperation.required()
    }).xor('parameter', 'parameter_prefix')).required(),
    legacy_key_operations: readOnlyOperations('legacy keys can never be widened to writes').required(),
    default_key_operations: readOnlyOperations('write operations always need an explicit grant').required()
});

const cronExpression = Joi.string().custom((value: string, helpers) => (Cron.validate(value) ? value : helpers.error('cron.invalid')))
    .messages({ 'cron.invalid': '"{#value}" is not a cron expression (e.g. "17 3 * * *": daily at 03:17)' });

/** `"FF D8 ?? E0"`: hex bytes separated by spaces, `??` for any byte; parsed to numbers, null for `??`. */
const signatureBytes = Joi.string().custom((text: string, helpers) => {

    if (!/^(?:[0-9A-Fa-f]{2}|\?\?)(?: (?:[0-9A-Fa-f]{2}|\?\?))*$/.test(text) || /^(?:\?\? ?)+$/.test(text)) {
        return helpers.error('signature.bytes');
    }

    return text.split(' ').map((pair) => (pair === '??' ? null : parseInt(pair, 16))) satisfies FileSignature['bytes'];
}).messages({ 'signature.bytes': '"{#value}" must be hex bytes separated by spaces, ?? for any byte, at least one of them known (e.g. "FF D8 FF")' });

const mediaTypeName = Joi.string().pattern(/^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/)
    .messages({ 'string.pattern.base': '"{#value}" is not a lower-case media type such as image/jpeg' });

// Up to 16 characters: what an upload's shortened name keeps of an extension (plugins/files/file-name.ts).
const fileExtension = Joi.string().max(16).pattern(/^\.[a-z0-9][a-z0-9_-]*$/)
    .messages({ 'string.pattern.base': '"{#value}" is not a lower-case file name extension such as .jpg' });

export const filesSchema = Joi.object({
    media_types: namedList(Joi.object({
        name: mediaTypeName.required(),
        extensions: uniqueStrings(fileExtension).min(1).required(),
        signatures: Joi.array().items(Joi.object({
            offset: Joi.number().integer().min(0).max(1024).default(0),
            bytes: signatureBytes.required()
        })).min(1),
        utf8_text: Joi.boolean().valid(true)
    }).xor('signatures', 'utf8_text')).min(1).required(),
    resources: namedList(Joi.object({
        name: Joi.string().required().valid(Joi.in('$fileResourceNames'))
            .messages({ 'any.only': '"{#value}" is not a resource whose records carry a file; those are {$fileResourceNames}' }),
        media_types: uniqueStrings(Joi.string().valid(Joi.in('/media_types', { adjust: (types) => namesIn(types) }))
            .messages({ 'any.only': '"{#value}" is not declared in media_types' })).min(1).required(),
        disposition: Joi.string().valid('inline', 'attachment').required(),
        // A signed URL is a bearer capability: keep it short-lived (at most a day).
        signed_url_seconds: Joi.number().integer().min(1).max(86400).required()
    })).required().custom((list: { name: string }[], helpers) => {

        const missing = (helpers.prefs.context as FilesContext).fileResourceNames.filter((name) => !list.some((entry) => entry.name === name));
        return missing.length === 0 ? list : helpers.error('resources.missing', { missing: missing.join(', ') });
    }).messages({ 'resources.missing': 'must list every resource whose records carry a file; missing: {#missing}' }),
    unreferenced_files: Joi.object({
        sweep_schedule: cronExpression.required(),
        // An upload holds its file for a moment before its record commits; a shorter grace would only make some write it twice.
        grace_seconds: Joi.number().integer().min(300).required()
    }).required()
});

export const usageSchema = Joi.object({
    flush_interval_seconds: Joi.number().integer().min(1).max(300).required(),
    // The usage pages show 30 days.
    retention_days: Joi.number().integer().min(30).required(),
    cleanup_schedule: cronExpression.required()
});

export const recordsSchema = Joi.object({
    idempotency_keys: Joi.object({
        cleanup_schedule: cronExpression.required()
    }).required()
});

export const siteSchema = Joi.object({
    sign_in_throttle: Joi.object({
        per_account_and_address: Joi.object({
            free_failures: Joi.number().integer().min(1).max(1000).required(),
            first_delay_seconds: Joi.number().integer().min(1).max(86_400).required(),
            max_delay_seconds: Joi.number().integer().min(Joi.ref('first_delay_seconds')).max(86_400).required(),
            window_seconds: Joi.number().integer().min(1).max(86_400).required()
        }).required(),
        per_account: windowSchema.required(),
        per_ip: windowSchema.required()
    }).required(),
    sessions: Joi.object({
        lifetime_hours: Joi.number().integer().min(1).max(24 * 30).required(),
        two_factor_minutes: Joi.number().integer().min(1).max(60).required()
    }).required()
});

/** Every range name ipaddr.js gives an address (`unicast` when no special range holds it). */
const ipRangeNames = ['unicast', ...new Set([IpAddr.IPv4, IpAddr.IPv6].flatMap((kind) => Object.keys((kind.prototype as unknown as { SpecialRanges: object }).SpecialRanges)))];

const cidr = Joi.string().custom((value: string, helpers) => (IpAddr.isValidCIDR(value) ? value : helpers.error('cidr.invalid')))
    .messages({ 'cidr.invalid': '"{#value}" is not an address range such as 10.0.0.0/8 or fc00::/7' });

/** Seconds; a fraction is allowed (tests use short waits). */
const seconds = Joi.number().min(0);

// A Node.js timer waits at most 2^31 - 1 ms (about 24.8 days): a longer one fires at once, so every attempt would time out.
const timeoutMs = Joi.number().integer().min(1).max(2 ** 31 - 1);

export const webhooksSchema = Joi.object({
    destinations: Joi.object({
        // Listed so the rule is visible in the file; deliveries are always signed HTTPS requests.
        schemes: uniqueStrings(Joi.string().valid('https').messages({ 'any.only': 'webhooks are delivered over https only' })).min(1).required(),
        ports: Joi.array().items(Joi.number().integer().min(1).max(65535)).unique().min(1).required(),
        allowed_ranges: uniqueStrings(Joi.string().valid(...ipRangeNames)).min(1).required()
            .messages({ 'any.only': `"{#value}" is not a range name of ipaddr.js (${ipRangeNames.join(', ')})` }),
        blocked_cidrs: uniqueStrings(cidr).default([]),
        blocked_hosts: uniqueStrings(Joi.string().lowercase().pattern(/^[a-z0-9.-]+$/)).default([])
    }).required(),
    delivery: Joi.object({
        connect_timeout_ms: timeoutMs.required(),
        response_timeout_ms: timeoutMs.required(),
        response_excerpt_bytes: Joi.number().integer().min(0).max(1048576).required(),
        concurrency: Joi.number().integer().min(1).max(1000).required(),
        // A lease shorter than one attempt would hand a delivery still under way to another worker.
        lease_seconds: Joi.number().min(1).required().custom((value: number, helpers) => {

            const delivery = helpers.state.ancestors[0] as { connect_timeout_ms?: number; response_timeout_ms?: number };
            const attemptMs = (delivery.connect_timeout_ms ?? 0) + (delivery.response_timeout_ms ?? 0);
            return value * 1000 > attemptMs ? value : helpers.error('lease.short', { attemptSeconds: attemptMs / 1000 });
        }).messages({ 'lease.short': 'must be longer than connect_timeout_ms and response_timeout_ms together ({#attemptSeconds} s)' })
    }).required(),
    retries: Joi.object({
        schedule_seconds: Joi.array().items(seconds).min(1).required(),
        jitter: Joi.number().min(0).max(1).required(),
        retry_after_max_seconds: seconds.required()
    }).required(),
    endpoints: Joi.object({
        disable_after_failing_seconds: seconds.required(),
        secret_rotation_overlap_seconds: seconds.required()
    }).required(),
    schedules: Joi.object({
        sweep: cronExpression.required(),
        cleanup: cronExpression.required()
    }).required(),
    retention: Joi.object({
        delivery_log_days: Joi.number().integer().min(1).required()
    }).required()
});

const absolutePath = Joi.string().pattern(/^\//).messages({ 'string.pattern.base': '"{#value}" must start with "/"' });

export const gatewaySchema = Joi.object({
    route_groups: namedList(Joi.object({
        name: Joi.string().required(),
        description: Joi.string(),
        paths: uniqueStrings(absolutePath).min(1).required(),
        public_paths: uniqueStrings(absolutePath).default([]),
        plugins: uniqueStrings().default([]),
        auth: Joi.object({
            scheme: Joi.string().required().valid(...authSchemeNames)
                .messages({ 'any.only': `"{#value}" is not a known auth scheme (known: ${authSchemeNames.join(', ')})` })
        }).required(),
        policies: namedList(Joi.object({
            name: Joi.string().required().valid(Joi.in('$knownPolicyNames'))
                .messages({ 'any.only': '"{#value}" is not a known policy (known: {$knownPolicyNames})' }),
            enabled: Joi.boolean().default(true),
            // Kong's shape has room for settings, but no policy takes any yet (limits live in rate-limits.yaml):
            // a key here would be ignored, so it is refused like any other unknown key.
            config: Joi.object({}).default({})
        })).required()
    })).min(1).required()
});

export const streamSchema = Joi.object({
    retention_days: Joi.number().integer().min(1).max(366).required(),
    retry_ms: Joi.number().integer().min(0).max(3_600_000).required(),
    // A fraction is allowed (tests use short intervals); proxies commonly drop a connection idle for 60 s.
    heartbeat_seconds: Joi.number().min(0.01).max(55).required(),
    max_buffered_events: Joi.number().integer().min(1).required(),
    max_streams_per_key: Joi.number().integer().min(1).required()
});
