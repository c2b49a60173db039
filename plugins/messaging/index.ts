import type { Plugin } from '@hapi/hapi';
import Joi from 'joi';

import { withBodyChecks } from '../../lib/request-bodies';
import { conflictRoutes } from './conflict-routes';
import { me } from './me';
import { outboxRoutes } from './outbox-routes';

export interface MessagingOptions {
    /** The gateway route group whose auth the routes use; their prefix is the registration's (`routes.prefix`). */
    routeGroup: string;
}

const optionsSchema = Joi.object<MessagingOptions, true>({
    routeGroup: Joi.string().required()
});

/**
 * The desktop messaging client's API: GET /me, the offline outbox and its conflicts. Each route declares the
 * token scope it needs.
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
                plugins: { gateway: { scope: 'profile' } },
                description: 'The user, family and device a device token speaks for'
            },
            handler: me
        });
        server.route(withBodyChecks([...outboxRoutes(routeGroup, server.realm.modifiers.route.prefix ?? ''), ...conflictRoutes(routeGroup)]));
    }
};
