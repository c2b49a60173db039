import Joi from 'joi';

import { loadedBefore, policyFile } from '../../gateway/policies/policy-file';
import { cronExpression, listsEvery, listsEveryMessage, namedList, uniqueStrings, windowSchema, type RateLimitWindow } from '../../gateway/policies/schema-parts';

export interface DeviceClientPolicy {
    /** The OAuth client_id. */
    name: string;
    display_name: string;
    scopes: string[];
    default_scopes: string[];
}

/** What messages of a family on one plan may carry as attachments. */
export interface AttachmentPlanPolicy {
    /** A plan of plans.yaml. */
    name: string;
    /** Media types (of policies/files.yaml, recognised by content) an attachment may be. */
    media_types: string[];
    /** The largest attachment; the family's storage quota (plans.yaml) bounds them all together. */
    max_file_bytes: number;
}

/** Resumable uploads of attachments (tus): how long they are kept unused, and when the leftovers are removed. */
export interface UploadsPolicy {
    /** An unfinished upload is removed this long after its creation (tus Upload-Expires). */
    expire_after_minutes: number;
    /** A finished upload no message holds is removed this long after it finished. */
    unattached_minutes: number;
    /** A cron expression: when the expired ones are removed. */
    cleanup_schedule: string;
    /** The most files the hosted site's compose form sends with one message (its body limit is this many of the largest attachment). */
    form_max_files: number;
}

/**
 * policies/messaging.yaml: the device clients, their scopes and their tokens' lifetimes. Declared beside the
 * account services that read it (devices.ts, device-flow.ts); the device-auth plugin and the gateway read it too.
 */
export interface MessagingPolicy {
    clients: DeviceClientPolicy[];
    scopes: { name: string; description: string }[];
    device_codes: { lifetime_seconds: number; interval_seconds: number; slow_down_seconds: number };
    endpoint_rate_limit: { per_address: RateLimitWindow };
    tokens: { access_minutes: number; refresh_idle_days: number; refresh_max_age_days: number; reuse_grace_seconds: number };
    conversations: {
        message_max_characters: number;
        group_title_max_characters: number;
        group_max_members: number;
        page_size: number;
        max_page_size: number;
    };
    changes: { retention_days: number; cleanup_schedule: string; sync_page_size: number };
    /** The recovery stream (GET /messaging/v1/stream). */
    stream: { retry_ms: number; heartbeat_seconds: number; max_buffered_events: number; max_streams_per_device: number };
    /** Per plan: every plan can message; the plan decides what attachments may be. */
    attachments: { plans: AttachmentPlanPolicy[] };
    uploads: UploadsPolicy;
    outbox: { max_items: number; conflicts_page_size: number; conflicts_max_page_size: number };
}

/** Context of the messaging schema: the plans of plans.yaml and the media types files.yaml recognises. */
type MessagingContext = { planNames: string[]; mediaTypeNames: string[] };

declare module '../../gateway/policies/policy-file' {
    interface Policies {
        messaging: MessagingPolicy;
    }
}

const scopeName = Joi.string().pattern(/^[a-z][a-z0-9_:.-]{0,63}$/).messages({ 'string.pattern.base': '"{#value}" is no scope name (lower-case letters, digits, _ : . -)' });

/** A client's scopes must be declared in the file's own scopes list. */
function clientScopesDeclared(policy: MessagingPolicy, helpers: Joi.CustomHelpers): MessagingPolicy | Joi.ErrorReport {

    const declared = new Set(policy.scopes.map((scope) => scope.name));
    for (const client of policy.clients) {
        const unknown = [...client.scopes, ...client.default_scopes].filter((scope) => !declared.has(scope));
        if (unknown.length > 0) {
            return helpers.error('scopes.undeclared', { client: client.name, unknown: unknown.join(', ') });
        }

        const beyond = client.default_scopes.filter((scope) => !client.scopes.includes(scope));
        if (beyond.length > 0) {
            return helpers.error('scopes.beyond', { client: client.name, beyond: beyond.join(', ') });
        }
    }

    return policy;
}

export const messagingPolicyFile = policyFile({
    fileName: 'messaging.yaml',
    key: 'messaging',
    schema: Joi.object<MessagingPolicy, true>({
        clients: namedList(Joi.object<DeviceClientPolicy, true>({
            name: Joi.string().pattern(/^[A-Za-z0-9._-]{1,100}$/).required(),
            display_name: Joi.string().max(100).required(),
            scopes: uniqueStrings(scopeName).min(1).required(),
            default_scopes: uniqueStrings(scopeName).min(1).required()
        })).required(),
        scopes: namedList(Joi.object({
            name: scopeName.required(),
            description: Joi.string().max(300).required()
        })).min(1).required(),
        device_codes: Joi.object<MessagingPolicy['device_codes'], true>({
            lifetime_seconds: Joi.number().integer().min(60).max(3600).required(),
            interval_seconds: Joi.number().integer().min(1).max(60).required(),
            slow_down_seconds: Joi.number().integer().min(1).max(60).required()
        }).required(),
        endpoint_rate_limit: Joi.object<MessagingPolicy['endpoint_rate_limit'], true>({
            per_address: windowSchema.required()
        }).required(),
        tokens: Joi.object<MessagingPolicy['tokens'], true>({
            access_minutes: Joi.number().integer().min(1).max(60).required(),
            refresh_idle_days: Joi.number().integer().min(1).max(365).required(),
            refresh_max_age_days: Joi.number().integer().min(Joi.ref('refresh_idle_days')).max(3650).required(),
            reuse_grace_seconds: Joi.number().integer().min(0).max(300).required()
        }).required(),
        conversations: Joi.object<MessagingPolicy['conversations'], true>({
            message_max_characters: Joi.number().integer().min(1).max(100000).required(),
            group_title_max_characters: Joi.number().integer().min(1).max(1000).required(),
            group_max_members: Joi.number().integer().min(2).max(10000).required(),
            page_size: Joi.number().integer().min(1).max(Joi.ref('max_page_size')).required(),
            max_page_size: Joi.number().integer().min(1).max(1000).required()
        }).required(),
        changes: Joi.object<MessagingPolicy['changes'], true>({
            retention_days: Joi.number().integer().min(1).max(3650).required(),
            cleanup_schedule: cronExpression.required(),
            sync_page_size: Joi.number().integer().min(10).max(5000).required()
        }).required(),
        stream: Joi.object<MessagingPolicy['stream'], true>({
            retry_ms: Joi.number().integer().min(0).max(3_600_000).required(),
            // A fraction is allowed (tests use short intervals); proxies commonly drop a connection idle for 60 s.
            heartbeat_seconds: Joi.number().min(0.01).max(55).required(),
            max_buffered_events: Joi.number().integer().min(1).required(),
            max_streams_per_device: Joi.number().integer().min(1).required()
        }).required(),
        attachments: Joi.object<MessagingPolicy['attachments'], true>({
            plans: namedList(Joi.object<AttachmentPlanPolicy, true>({
                name: Joi.string().required().valid(Joi.in('$planNames')).messages({ 'any.only': '"{#value}" is not a plan of plans.yaml; those are {$planNames}' }),
                // Empty: the plan's messages carry text only.
                media_types: uniqueStrings(Joi.string().valid(Joi.in('$mediaTypeNames')).messages({ 'any.only': '"{#value}" is not a media type of files.yaml; those are {$mediaTypeNames}' })).required(),
                max_file_bytes: Joi.number().integer().min(0).required()
            })).required().custom(listsEvery('planNames', 'plan of plans.yaml')).messages(listsEveryMessage)
        }).required(),
        uploads: Joi.object<UploadsPolicy, true>({
            expire_after_minutes: Joi.number().integer().min(1).max(7 * 24 * 60).required(),
            unattached_minutes: Joi.number().integer().min(1).max(30 * 24 * 60).required(),
            cleanup_schedule: cronExpression.required(),
            form_max_files: Joi.number().integer().min(1).max(10).required()
        }).required(),
        outbox: Joi.object<MessagingPolicy['outbox'], true>({
            max_items: Joi.number().integer().min(1).max(1000).required(),
            conflicts_page_size: Joi.number().integer().min(1).max(Joi.ref('conflicts_max_page_size')).required(),
            conflicts_max_page_size: Joi.number().integer().min(1).max(1000).required()
        }).required()
    }).custom(clientScopesDeclared).messages({
        'scopes.undeclared': 'client "{#client}" names scopes not declared under scopes: {#unknown}',
        'scopes.beyond': 'client "{#client}" has default_scopes it is not allowed: {#beyond}'
    }),
    context: (loaded): MessagingContext => ({
        planNames: [...loadedBefore(loaded, 'plans', 'messaging.yaml').keys()],
        mediaTypeNames: loadedBefore(loaded, 'files', 'messaging.yaml').media_types.map((type) => type.name)
    })
});

/** What the plan's messages may carry; every plan is listed (the schema checks it). */
export function attachmentPolicy(policy: MessagingPolicy, plan: string): AttachmentPlanPolicy {

    return policy.attachments.plans.find((entry) => entry.name === plan)!;
}

/** A client of the policy by its client_id. */
export function deviceClient(policy: MessagingPolicy, clientId: string): DeviceClientPolicy | undefined {

    return policy.clients.find((client) => client.name === clientId);
}
