import type { Plugin } from '@hapi/hapi';
import Joi from 'joi';

import { withBodyChecks } from '../../lib/request-bodies';
import { blockRoutes } from './block-routes';
import { conflictRoutes } from './conflict-routes';
import { conversationRoutes } from './conversation-routes';
import { messagingIdempotencyCleanup } from './idempotency-cleanup';
import { me } from './me';
import { messageRoutes } from './message-routes';
import { outboxRoutes } from './outbox-routes';
import { meResponse } from './response-docs';
import { routeDeclaration } from './route-declaration';
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
 * attachments (tus, uploads/), the offline outbox and its conflicts. Each route declares the token scope it needs.
 */
export const messagingPlugin: Plugin<MessagingOptions> = {
    name: 'messaging',
    multiple: true,
    register(server, options) {

        Joi.assert(options, optionsSchema, 'messaging plugin options');
        const { routeGroup } = options;
        const context: UploadsContext = { ...options, path: `${server.realm.modifiers.route.prefix ?? ''}/uploads`, policies: () => options.policyStore.current() };
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

        // The clean-up serves every registration: the first one's.
        if (server.plugins.messaging) {
            return;
        }

        server.expose({ deleteExpiredUploads: () => deleteExpiredUploads(context) } satisfies MessagingApi);
        const cleanup = expiredUploadsCleanup(context);
        const keysCleanup = messagingIdempotencyCleanup(options.models, options.policyStore, options.log);
        // Only while the server runs (not in the CLI); stopped before the database closes.
        server.ext('onPostStart', () => {

            cleanup.start();
            keysCleanup.start();
        });
        server.ext('onPreStop', () => {

            cleanup.stop();
            keysCleanup.stop();
        });
    }
};
