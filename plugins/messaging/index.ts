import type { Plugin } from '@hapi/hapi';
import Joi from 'joi';

import type { StreamHub } from '../../lib/event-stream/hub';
import type { MessagingBatch } from '../../lib/messaging/changes';
import { messagingChangesCleanup } from './changes-cleanup';
import { me } from './me';
import { recoveryStream } from './stream';
import { syncRoute } from './sync';

export interface MessagingOptions {
    /** The gateway route group whose auth the routes use; their prefix is the registration's (`routes.prefix`). */
    routeGroup: string;
}

const optionsSchema = Joi.object<MessagingOptions, true>({
    routeGroup: Joi.string().required()
});

/** What the messaging plugin offers (`server.plugins.messaging`): for tests and the benchmark. */
export interface MessagingApi {
    /** The open recovery streams of the latest registration (it emits `removed` as each one lets go). */
    recoveryStreams: StreamHub<MessagingBatch>;
}

declare module '@hapi/hapi' {
    interface PluginProperties {
        messaging: MessagingApi;
    }
}

/**
 * The desktop messaging client's API. Each route declares the token scope it needs. Services come from
 * `server.app.services` (the messaging context, shared with the site's pages).
 */
export const messagingPlugin: Plugin<MessagingOptions> = {
    name: 'messaging',
    multiple: true,
    dependencies: ['gateway'],
    register(server, options) {

        const { routeGroup } = Joi.attempt(options, optionsSchema);
        const { messaging: context, authEpoch, log } = server.app.services;
        const first = !(server.plugins.messaging as MessagingApi | undefined);
        server.route({
            method: 'GET',
            path: '/me',
            options: {
                auth: routeGroup,
                plugins: { gateway: { scope: 'profile' } },
                description: 'The user, family and device a device token speaks for'
            },
            handler: me
        });

        server.route(syncRoute(routeGroup, context));
        const { hub, route } = recoveryStream({ routeGroup, context, authEpoch, reverify: (request) => server.plugins.gateway.reverify(request), log });
        server.route(route);
        // Open streams would hold server.stop() for its whole timeout.
        server.ext('onPreStop', () => hub.closeAll('shutdown', 'The server is stopping: reconnect with Last-Event-ID to resume on another instance.'));
        // As a key, not in an object: hapi would merge a copy of an object's values.
        server.expose('recoveryStreams' satisfies keyof MessagingApi, hub);

        if (first) {
            // Only while the server runs (not in the CLI); stopped before the database closes.
            const cleanup = messagingChangesCleanup(context, log);
            server.ext('onPostStart', () => cleanup.start());
            server.ext('onPreStop', () => cleanup.stop());
        }
    }
};
