/*
 * The policy data as the service uses it, after loading and validation (schemas.ts
 * declares the file shapes these come from). Field names follow the YAML files.
 */

export interface RateLimitWindow {
    limit: number;
    window_seconds: number;
}

export interface RateLimitPreset {
    name: string;
    per_key: RateLimitWindow;
    /** Shared by all of a family's keys together. */
    per_family: RateLimitWindow;
}

export interface PlanPolicy {
    name: string;
    label: string;
    api_access: boolean;
    /** The plan to suggest to a family whose plan has no API access. */
    upgrade_to?: string;
    /** Name of a preset in rate-limits.yaml. */
    rate_limit: string;
    /** The largest file one upload may carry; absent: the plan accepts no uploads. */
    max_upload_bytes?: number;
    /** The most the family's files may add up to (gallery and documents together). */
    storage_quota_bytes?: number;
    /** How many webhook endpoints a family may have; absent: none. */
    webhook_endpoints?: number;
}

export interface OperationPolicy {
    name: string;
    description: string;
    write: boolean;
}

/** A query parameter (or parameter prefix, e.g. `filter[`) that adds an operation a read request needs. */
export interface QueryOperation {
    parameter?: string;
    parameter_prefix?: string;
    operation: string;
}

export interface ScopesPolicy {
    resources: string[];
    aggregate_resource: string;
    operations: OperationPolicy[];
    query_operations: QueryOperation[];
    legacy_key_operations: string[];
    default_key_operations: string[];
}

/** Bytes a file of a media type has at `offset`; null matches any byte (`??` in the file). */
export interface FileSignature {
    offset: number;
    bytes: (number | null)[];
}

/** How to recognise one media type: by signatures, or (plain text, which has none) as UTF-8 text. */
export interface MediaTypePolicy {
    name: string;
    /** Its file name extensions (`.jpg`), lower case, the usual one first: what an uploaded file's name must end with. */
    extensions: string[];
    signatures?: FileSignature[];
    utf8_text?: true;
}

export interface FileResourcePolicy {
    /** A resource whose records carry a file (gallery, documents). */
    name: string;
    /** The media types its uploads may be. */
    media_types: string[];
    /** Content-Disposition of the served file: shown in the browser, or always downloaded. */
    disposition: 'inline' | 'attachment';
    /** Lifetime of the signed URLs that serve its files. */
    signed_url_seconds: number;
}

export interface FilesPolicy {
    /** In detection order: the first type whose signature matches is what a file is. */
    media_types: MediaTypePolicy[];
    resources: FileResourcePolicy[];
    /** Removing stored files no record holds. */
    unreferenced_files: {
        /** A cron expression. */
        sweep_schedule: string;
        /** Files written more recently are kept: an upload may be about to save its record. */
        grace_seconds: number;
    };
}

/** policies/usage.yaml: how the gateway's usage counts are written and kept. */
export interface UsagePolicy {
    flush_interval_seconds: number;
    retention_days: number;
    /** A cron expression. */
    cleanup_schedule: string;
}

/** policies/records.yaml: the records API's periodic upkeep. */
export interface RecordsPolicy {
    idempotency_keys: {
        /** A cron expression: when the answers to creates past their 24 hours are deleted. */
        cleanup_schedule: string;
    };
}

/** policies/site.yaml: sign-in throttling and session lifetimes of the hosted site. */
export interface SitePolicy {
    sign_in_throttle: {
        per_account_and_address: { free_failures: number; first_delay_seconds: number; max_delay_seconds: number; window_seconds: number };
        per_account: { limit: number; window_seconds: number };
        per_ip: { limit: number; window_seconds: number };
    };
    sessions: {
        lifetime_hours: number;
        two_factor_minutes: number;
    };
}

/** policies/webhooks.yaml: destination rules, delivery, retries, endpoint health, schedules, retention. */
export interface WebhooksPolicy {
    destinations: {
        schemes: string[];
        ports: number[];
        /** ipaddr.js range names a resolved address may lie in (`unicast`: the public internet). */
        allowed_ranges: string[];
        /** CIDRs refused even inside an allowed range. */
        blocked_cidrs: string[];
        /** Host names refused with every name under them. */
        blocked_hosts: string[];
    };
    delivery: {
        connect_timeout_ms: number;
        response_timeout_ms: number;
        response_excerpt_bytes: number;
        concurrency: number;
        lease_seconds: number;
    };
    retries: {
        /** The wait before each attempt; its length is the number of attempts. */
        schedule_seconds: number[];
        /** Each wait is stretched by a random share up to this (0.2: up to 20 % longer). */
        jitter: number;
        retry_after_max_seconds: number;
    };
    endpoints: {
        disable_after_failing_seconds: number;
        secret_rotation_overlap_seconds: number;
    };
    /** Cron expressions. */
    schedules: { sweep: string; cleanup: string };
    retention: { delivery_log_days: number };
}

/** policies/stream.yaml: resuming and pacing the change stream. */
export interface StreamPolicy {
    /** How long change events are kept for resuming; an older Last-Event-ID gets a `reset` event. */
    retention_days: number;
    /** The `retry:` hint sent when a stream opens. */
    retry_ms: number;
    heartbeat_seconds: number;
    /** Events held for a slow reader before its stream is closed with reason `overflow`. */
    max_buffered_events: number;
    /** Open streams per API key on one instance. */
    max_streams_per_key: number;
}

export interface Policies {
    plans: Map<string, PlanPolicy>;
    scopes: ScopesPolicy;
    files: FilesPolicy;
    usage: UsagePolicy;
    records: RecordsPolicy;
    site: SitePolicy;
    webhooks: WebhooksPolicy;
    stream: StreamPolicy;
    rateLimits: Map<string, RateLimitPreset>;
    loadedAt: Date;
}

/** One link of a route group's policy chain, in Kong's plugin shape. */
export interface PolicyRef {
    name: string;
    enabled: boolean;
    /** Validated by the policy itself: its options belong to it. */
    config: Record<string, unknown>;
}

export interface RouteGroup {
    name: string;
    description?: string;
    /** Path prefixes; every route under one of them must belong to this group. */
    paths: string[];
    /** Exact paths under `paths` served without this group's auth (the API reference). */
    public_paths: string[];
    /** The plugins serving the group's routes, registered under its path (the deployment knows their names and checks them). */
    plugins: string[];
    auth: { scheme: string };
    /** Run in this order for every request of the group. */
    policies: PolicyRef[];
}

export interface GatewayConfig {
    routeGroups: RouteGroup[];
}
