import type { Plugin } from '@hapi/hapi';
import Joi from 'joi';

import type { AuthEpoch } from '../../gateway/auth-epoch';
import type { PolicyStore } from '../../gateway/policies/policy-store';
import type { Principal } from '../../gateway/principal';
import { effectiveResources } from '../../gateway/scopes';
import type { ChangeBatch, ChangeBus } from '../../lib/change-bus';
import { StreamHub } from '../../lib/event-stream/hub';
import type { Log } from '../../lib/logger';
import type { Models } from '../../models';
import { aggregateResourceName } from '../../models/resources';
import { ChangeLogReader } from './change-log';
import { lastEventIdSchema, openStreamHandler } from './open-stream';

export interface StreamOptions {
    /** The gateway route group whose auth the stream uses; its prefix is the registration's (`routes.prefix`). */
    routeGroup: string;
    models: Models;
    changeBus: ChangeBus;
    authEpoch: AuthEpoch;
    /** The policies in force (stream.yaml), and their reloads: a reload can take away what a key had. */
    policyStore: PolicyStore;
    log: Log;
}

const optionsSchema = Joi.object({
    routeGroup: Joi.string().required(),
    models: Joi.object().required(),
    changeBus: Joi.object().required(),
    authEpoch: Joi.object().required(),
    policyStore: Joi.object().required(),
    log: Joi.function().required()
});

/** What the stream plugin offers (`server.plugins.stream`): for tests and the benchmark. */
export interface StreamApi {
    /** Streams open on this instance, in every registration (version) of the API. */
    openStreams(): number;
}

declare module '@hapi/hapi' {
    interface PluginProperties {
        stream: StreamApi;
    }
}

/** What a stream carries depends on the plan and the resources in scope: when either changes, it reconnects to carry the new. */
function sameAccess(before: Principal, now: Principal): boolean {

    const resources = (credentials: Principal) => effectiveResources(credentials).sort().join(',');
    return before.family.plan === now.family.plan && resources(before) === resources(now);
}

const notes = [
    'Server-sent events: `id: <event id>`, `event: <resource>.<action>` and `data:` the event\'s metadata as JSON, '
    + '`{"id","resource","action","record_id","family_long_id","revision","occurred_at"}`, never record contents; '
    + 'only the key\'s family and the resources in its scope (the route declares the aggregate `all`). '
    + 'A `retry:` hint first, then a `: heartbeat` comment at a fixed interval.',
    'Resume with the `Last-Event-ID` header (or `last_event_id`, for EventSource in browsers; the header wins): the events missed are replayed '
    + 'in order, then the stream carries on live. When they are past the retention window the stream sends `event: reset` instead: re-fetch, then carry on from its id.',
    'The server ends a stream with `event: close`, `data: {"code","message"}`: `overflow` (the client read too slowly; reconnect to resume), '
    + '`credentials_changed` (plan or scope changed; reconnect), `shutdown`, or the code a new request would get (`invalid_key`, `family_suspended`…) '
    + 'when the key is revoked or the family suspended. Streams per key are capped: one more is refused with 429.'
];

/**
 * The change stream, GET <prefix>/events/stream: the family's change events as
 * server-sent events, replayed from the change log after Last-Event-ID, then live
 * from the change bus; closed within a second when its key stops being good.
 * A second version of the API is a second registration, with its own hub.
 */
export const streamPlugin: Plugin<StreamOptions> = {
    name: 'stream',
    multiple: true,
    dependencies: ['gateway'],
    register(server, options) {

        Joi.assert(options, optionsSchema, 'stream plugin options');
        const hub = new StreamHub<ChangeBatch>({
            streamName: 'change stream',
            holderName: 'API key',
            changeBus: options.changeBus,
            authEpoch: options.authEpoch,
            policyStore: options.policyStore,
            reverify: (request) => server.plugins.gateway.reverify(request),
            accessChanged: { changed: (before, now) => !sameAccess(before, now), message: 'This key\'s plan or scope changed: reconnect with Last-Event-ID to carry on under the new one.' },
            log: options.log
        });

        server.route({
            method: 'GET',
            path: '/events/stream',
            handler: openStreamHandler({ hub, changeLog: new ChangeLogReader(options.models), policies: () => options.policyStore.current(), log: options.log }),
            options: {
                auth: options.routeGroup,
                // `all`: the stream carries every resource in the key's scope, as GET <prefix>/all does.
                plugins: {
                    gateway: { resource: aggregateResourceName, operation: 'read' },
                    docs: { responses: { 200: { description: 'The change stream (text/event-stream), open until either side closes it.', content: { 'text/event-stream': { schema: { type: 'string' } } } } } }
                },
                tags: ['api', 'stream'],
                description: 'Change events of the resources in the key\'s scope, as server-sent events',
                notes,
                validate: {
                    query: Joi.object({ last_event_id: lastEventIdSchema.label('last_event_id').description('Resume after this event id, for browsers\' EventSource; a Last-Event-ID header wins.') }),
                    headers: Joi.object({ 'last-event-id': lastEventIdSchema.label('Last-Event-ID') }).unknown()
                }
            }
        });

        // Open streams would hold server.stop() for its whole timeout.
        server.ext('onPreStop', () => hub.closeAll('shutdown', 'The server is stopping: reconnect with Last-Event-ID to resume on another instance.'));
        // Read now: this registration's expose() replaces what the earlier ones offer.
        const earlierOpenStreams = (server.plugins.stream as StreamApi | undefined)?.openStreams;
        server.expose({ openStreams: () => hub.size + (earlierOpenStreams?.() ?? 0) } satisfies StreamApi);
    }
};
