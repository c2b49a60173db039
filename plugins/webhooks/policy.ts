import Joi from 'joi';
import IpAddr from 'ipaddr.js';

import { policyFile } from '../../gateway/policies/policy-file';
import { cronExpression, uniqueStrings } from '../../gateway/policies/schema-parts';

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

declare module '../../gateway/policies/policy-file' {
    interface Policies {
        webhooks: WebhooksPolicy;
    }
}

/** Every range name ipaddr.js gives an address (`unicast` when no special range holds it). */
const ipRangeNames = ['unicast', ...new Set([IpAddr.IPv4, IpAddr.IPv6].flatMap((kind) => Object.keys((kind.prototype as unknown as { SpecialRanges: object }).SpecialRanges)))];

const cidr = Joi.string().custom((value: string, helpers) => (IpAddr.isValidCIDR(value) ? value : helpers.error('cidr.invalid')))
    .messages({ 'cidr.invalid': '"{#value}" is not an address range such as 10.0.0.0/8 or fc00::/7' });

/** Seconds; a fraction is allowed (tests use short waits). */
const seconds = Joi.number().min(0);

// A Node.js timer waits at most 2^31 - 1 ms (about 24.8 days): a longer one fires at once, so every attempt would time out.
const timeoutMs = Joi.number().integer().min(1).max(2 ** 31 - 1);

type Part<Key extends keyof WebhooksPolicy> = WebhooksPolicy[Key];

export const webhooksPolicyFile = policyFile({
    fileName: 'webhooks.yaml',
    key: 'webhooks',
    schema: Joi.object<WebhooksPolicy, true>({
        destinations: Joi.object<Part<'destinations'>, true>({
            // Listed so the rule is visible in the file; deliveries are always signed HTTPS requests.
            schemes: uniqueStrings(Joi.string().valid('https').messages({ 'any.only': 'webhooks are delivered over https only' })).min(1).required(),
            ports: Joi.array().items(Joi.number().integer().min(1).max(65535)).unique().min(1).required(),
            allowed_ranges: uniqueStrings(Joi.string().valid(...ipRangeNames)).min(1).required()
                .messages({ 'any.only': `"{#value}" is not a range name of ipaddr.js (${ipRangeNames.join(', ')})` }),
            blocked_cidrs: uniqueStrings(cidr).default([]),
            blocked_hosts: uniqueStrings(Joi.string().lowercase().pattern(/^[a-z0-9.-]+$/)).default([])
        }).required(),
        delivery: Joi.object<Part<'delivery'>, true>({
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
        retries: Joi.object<Part<'retries'>, true>({
            schedule_seconds: Joi.array().items(seconds).min(1).required(),
            jitter: Joi.number().min(0).max(1).required(),
            retry_after_max_seconds: seconds.required()
        }).required(),
        endpoints: Joi.object<Part<'endpoints'>, true>({
            disable_after_failing_seconds: seconds.required(),
            secret_rotation_overlap_seconds: seconds.required()
        }).required(),
        schedules: Joi.object<Part<'schedules'>, true>({
            sweep: cronExpression.required(),
            cleanup: cronExpression.required()
        }).required(),
        retention: Joi.object<Part<'retention'>, true>({
            delivery_log_days: Joi.number().integer().min(1).required()
        }).required()
    })
});
