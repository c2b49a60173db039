import type { Plugin } from '@hapi/hapi';
import Joi from 'joi';

import type { StreamHub } from '../../lib/event-stream/hub';
import type { MessagingBatch } from '../../lib/messaging/changes';
import { withBodyChecks } from '../../lib/request-bodies';
import { blockRoutes } from './block-routes';
import { conflictRoutes } from './conflict-routes';
import { conversationRoutes } from './conversation-routes';
import { messagingRetentionCleanup } from './retention-cleanup';
import { me } from './me';
import { messageRoutes } from './message-routes';
import { outboxRoutes } from './outbox-routes';
import { meResponse } from './response-docs';
import { routeDeclaration } from './route-declaration';
import { recoveryStream } from './stream';
import { syncRoute } from './sync';
import type { UploadsContext, UploadsOptions } from './uploads/context';
import { deleteExpiredUploads, expiredUploadsCleanup } from './uploads/expiry';
import { uploadRoutes } from './uploads/routes';

export interface MessagingOptions extends UploadsOptions {
    /** The gateway route group whose auth the routes use; their prefix is the registration's (`routes.prefix`). */
    routeGroup: string;
}

/** What `server.plugins.messaging` holds. */
export interface MessagingApi {
    /** Removes the uploads past their expiry that no message holds; what the schedule runs. Resolves to how many. */
    deleteExpiredUploads(): Promise<number>;
    /** The open recovery streams of the latest registration (it emits `removed` as each one lets go): for tests and the benchmark. */
    recoveryStreams: StreamHub<MessagingBatch>;
}

declare module '@hapi/hapi' {
    interface PluginProperties {
        messaging: MessagingApi;
    }
}

const optionsSchema = Joi.object({
    routeGroup: Joi.string().required(),
    redisPrefix: Joi.string().allow('').required(),
    publicBaseUrl: Joi.string().uri({ scheme: ['http', 'https'] }).required()
}).unknown();

/**
 * The desktop messaging client's API over the messaging services (lib/messaging/): the device's user,
 * conversations and their members, messages, the people of the family and blocks, the resumable uploads of
 * attachments (tus, uploads/), the offline outbox and its conflicts, sync and the recovery stream. Each route
 * declares the token scope it needs.
 */
export const messagingPlugin: Plugin<MessagingOptions> = {
    name: 'messaging',
    multiple: true,
    dependencies: ['gateway'],
    register(server, options) {

        Joi.assert(options, optionsSchema, 'messaging plugin options');
        const { routeGroup } = options;
        const context: UploadsContext = { ...options, path: `${server.realm.modifiers.route.prefix ?? ''}/uploads`, policies: () => options.policyStore.current() };
        const { messaging, authEpoch } = server.app.services;
        const first = !server.plugins.messaging;
        server.route({
            method: 'GET',
            path: '/me',
            options: {
                auth: routeGroup,
                plugins: { gateway: { scope: 'profile' }, docs: meResponse },
                tags: ['api', 'devices'],
                description: 'The user, family and device a device token speaks for'
            },
            handler: me
        });
        server.route(uploadRoutes(context, routeGroup));
        server.route(withBodyChecks([
            ...conversationRoutes(routeDeclaration(routeGroup, 'conversations')),
            ...messageRoutes(routeDeclaration(routeGroup, 'messages')),
            ...blockRoutes(routeDeclaration(routeGroup, 'people and blocks')),
            ...outboxRoutes(routeGroup, server.realm.modifiers.route.prefix ?? ''),
            ...conflictRoutes(routeGroup)
        ]));
        server.route(syncRoute(routeGroup, messaging));

        const { hub, route } = recoveryStream({ routeGroup, context: messaging, authEpoch, reverify: (request) => server.plugins.gateway.reverify(request), log: options.log });
        server.route(route);
        // Open streams would hold server.stop() for its whole timeout.
        server.ext('onPreStop', () => hub.closeAll('shutdown', 'The server is stopping: reconnect with Last-Event-ID to resume on another instance.'));
        // As a key, not in an object: hapi would merge a copy of an object's values.
        server.expose('recoveryStreams' satisfies keyof MessagingApi, hub);

        // The clean-ups serve every registration: the first one's.
        if (!first) {
            return;
        }

        server.expose('deleteExpiredUploads' satisfies keyof MessagingApi, () => deleteExpiredUploads(context));
        const cleanups = [
            expiredUploadsCleanup(context),
            messagingRetentionCleanup(messaging, options.log)
        ];
        // Only while the server runs (not in the CLI); stopped before the database closes.
        server.ext('onPostStart', () => cleanups.forEach((cleanup) => cleanup.start()));
        server.ext('onPreStop', () => cleanups.forEach((cleanup) => cleanup.stop()));
    }
};
