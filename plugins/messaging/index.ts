import type { Plugin } from '@hapi/hapi';
import Joi from 'joi';

import { me } from './me';
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
 * The desktop messaging client's API: GET /me, and the resumable uploads of attachments (tus, uploads/).
 * Each route declares the token scope it needs.
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
                plugins: { gateway: { scope: 'profile' } },
                description: 'The user, family and device a device token speaks for'
            },
            handler: me
        });
        server.route(uploadRoutes(context, routeGroup));

        // The clean-up serves every registration: the first one's.
        if (server.plugins.messaging) {
            return;
        }

        server.expose({ deleteExpiredUploads: () => deleteExpiredUploads(context) } satisfies MessagingApi);
        const cleanup = expiredUploadsCleanup(context);
        // Only while the server runs (not in the CLI); stopped before the database closes.
        server.ext('onPostStart', () => cleanup.start());
        server.ext('onPreStop', () => cleanup.stop());
    }
};
