import type { Plugin } from '@hapi/hapi';
import Joi from 'joi';

import { withBodyChecks } from '../../lib/request-bodies';
import { blockRoutes } from './block-routes';
import { conversationRoutes } from './conversation-routes';
import { messagingIdempotencyCleanup } from './idempotency-cleanup';
import { me } from './me';
import { messageRoutes } from './message-routes';
import { meResponse } from './response-docs';
import { routeDeclaration } from './route-declaration';

export interface MessagingOptions {
    /** The gateway route group whose auth the routes use; their prefix is the registration's (`routes.prefix`). */
    routeGroup: string;
}

const optionsSchema = Joi.object<MessagingOptions, true>({
    routeGroup: Joi.string().required()
});

/**
 * The desktop messaging client's API over the messaging services (lib/messaging/): the device's user,
 * conversations and their members, messages, the people of the family and blocks. Each route declares
 * the token scope it needs.
 */
export const messagingPlugin: Plugin<MessagingOptions> = {
    name: 'messaging',
    multiple: true,
    register(server, options) {

        const { routeGroup } = Joi.attempt(options, optionsSchema);
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
        server.route(withBodyChecks([
            ...conversationRoutes(routeDeclaration(routeGroup, 'conversations')),
            ...messageRoutes(routeDeclaration(routeGroup, 'messages')),
            ...blockRoutes(routeDeclaration(routeGroup, 'people and blocks'))
        ]));

        // Only while the server runs (not in the CLI); stopped before the database closes.
        const { models, policyStore, log } = server.app.services;
        const cleanup = messagingIdempotencyCleanup(models, policyStore, log);
        server.ext('onPostStart', () => cleanup.start());
        server.ext('onPreStop', () => cleanup.stop());
    }
};
