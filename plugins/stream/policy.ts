import Joi from 'joi';

import { policyFile } from '../../gateway/policies/policy-file';

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

declare module '../../gateway/policies/policy-file' {
    interface Policies {
        stream: StreamPolicy;
    }
}

export const streamPolicyFile = policyFile({
    fileName: 'stream.yaml',
    key: 'stream',
    schema: Joi.object<StreamPolicy, true>({
        retention_days: Joi.number().integer().min(1).max(366).required(),
        retry_ms: Joi.number().integer().min(0).max(3_600_000).required(),
        // A fraction is allowed (tests use short intervals); proxies commonly drop a connection idle for 60 s.
        heartbeat_seconds: Joi.number().min(0.01).max(55).required(),
        max_buffered_events: Joi.number().integer().min(1).required(),
        max_streams_per_key: Joi.number().integer().min(1).required()
    })
});
