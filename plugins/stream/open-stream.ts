import type { Request, ResponseToolkit } from '@hapi/hapi';
import Joi from 'joi';

import type { Policies } from '../../gateway/policies/policy-file';
import { principalOf } from '../../gateway/principal';
import { effectiveResources } from '../../gateway/scopes';
import type { ChangeBatch } from '../../lib/change-bus';
import { EventStream } from '../../lib/event-stream/event-stream';
import type { StreamHub } from '../../lib/event-stream/hub';
import { openEventStream } from '../../lib/event-stream/open';
import type { Log } from '../../lib/logger';
import type { ChangeLogReader } from './change-log';
import { ChangeFeed } from './change-feed';

export interface StreamContext {
    hub: StreamHub<ChangeBatch>;
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

/** GET <prefix>/events/stream: the family's change events in the key's scope, replayed after Last-Event-ID, then live. */
export function openStreamHandler(context: StreamContext) {

    return (request: Request, h: ResponseToolkit) => {

        const policy = context.policies().stream;
        const credentials = principalOf(request);
        const familyLongId = credentials.family.familyLongId;
        const feed = new ChangeFeed({
            changeLog: context.changeLog, familyLongId, resources: effectiveResources(credentials), retentionDays: policy.retention_days, lastEventId: lastEventIdOf(request)
        });
        const stream = new EventStream({
            request, credentials, holderId: credentials.who.id, familyLongId, feed, pacing: policy, log: context.log,
            onEnd: (ended) => context.hub.remove(ended)
        });

        return openEventStream(h, context.hub, stream, policy.max_streams_per_key, policy);
    };
}
