import type { Request, ResponseToolkit } from '@hapi/hapi';
import Joi from 'joi';

import type { Policies } from '../../gateway/policies/policy-file';
import { principalOf } from '../../gateway/principal';
import type { Log } from '../../lib/logger';
import type { ChangeLogReader } from './change-log';
import { ChangeStream } from './change-stream';
import type { StreamHub } from './hub';

export interface StreamContext {
    hub: StreamHub;
    changeLog: ChangeLogReader;
    policies: () => Policies;
    log: Log;
}

/** An event id, as the stream sent it; empty is the same as none. */
export const lastEventIdSchema = Joi.string().allow('').pattern(/^\d{1,15}$/)
    .messages({ 'string.pattern.base': '{#label} must be the id of an event this stream sent (digits only)' });

/**
 * Where to resume: a browser's EventSource reconnects to the same URL, query included,
 * with the Last-Event-ID header of the latest event it received, so the header wins.
 */
function lastEventIdOf(request: Request): number | undefined {

    const given = request.headers['last-event-id'] || (request.query as { last_event_id?: string }).last_event_id;
    return given ? Number(given) : undefined;
}

/** GET <prefix>/events/stream: admits the stream, decides where it starts, then answers with its body, written from then on. */
export function openStreamHandler(context: StreamContext) {

    return async (request: Request, h: ResponseToolkit) => {

        const policy = context.policies().stream;
        const stream = new ChangeStream({
            request,
            credentials: principalOf(request),
            policy,
            changeLog: context.changeLog,
            log: context.log,
            onEnd: (ended) => context.hub.remove(ended)
        });

        // Listening before reading the change log: nothing committed in between is lost.
        await context.hub.add(stream, policy.max_streams_per_key, Math.max(1, Math.ceil(policy.retry_ms / 1000)));
        await stream.start(lastEventIdOf(request));

        return h.response(stream.body)
            .type('text/event-stream')
            .header('Cache-Control', 'no-cache')
            .header('Connection', 'keep-alive')
            // nginx would otherwise hold events back in its buffer.
            .header('X-Accel-Buffering', 'no');
    };
}
