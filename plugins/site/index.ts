import type { Plugin } from '@hapi/hapi';
import Joi from 'joi';

import { withBodyChecks } from '../../lib/request-bodies';
import { accountRoutes } from './account-routes';
import { adminRoutes } from './admin';
import { assetRoutes } from './assets';
import { assertCsrfChecked, declareCsrfCookie, withCsrfCheck } from '../../lib/csrf';
import { connectedDeviceRoutes } from './connected-device-routes';
import { declareDeviceCookie } from './device-cookie';
import { deviceRoutes } from './device-routes';
import { apiAccessRoutes } from './manage/api-access-routes';
import { keyRoutes } from './manage/key-routes';
import { webhookRoutes } from './manage/webhook-routes';
import { messageRoutes } from './messages';
import { siteOptionsSchema, type SiteOptions } from './options';
import { ignoringUnknownQuery } from './page-queries';
import { pageResponses } from './page-responses';
import { assertPagesSignedIn } from './route-auth';
import { registerSessionStrategy } from './session-strategy';
import { signInRoutes } from './sign-in-routes';
import { registerViews } from './views';

/**
 * The hosted site (DESIGN.md §7): sign-in with optional two-factor codes, device approval, messages between a
 * family's users, Manage > APIs & Connectors for family managers, and the super-admin area. Server-rendered
 * pages that need no JavaScript. Provides the `site-session` auth strategy to any plugin
 * registered after it, whose routes that use it must go through withCsrfCheck() (csrf.ts):
 * start-up refuses one that does not.
 */
export const sitePlugin: Plugin<SiteOptions> = {
    name: 'site',
    async register(server, options) {

        Joi.assert(options, siteOptionsSchema, 'site plugin options');
        const secure = options.publicBaseUrl.startsWith('https:');

        const sessionCookies = registerSessionStrategy(server, options, { password: options.cookiePassword, secure });
        declareCsrfCookie(server, secure);
        declareDeviceCookie(server, { password: options.cookiePassword, secure });
        await registerViews(server, options);
        server.ext('onPreResponse', pageResponses(secure), { sandbox: 'plugin' });        // the site's own routes only
        server.ext('onPreStart', () => {

            assertPagesSignedIn(server);
            assertCsrfChecked(server);
        });

        server.route(withBodyChecks(withCsrfCheck(ignoringUnknownQuery([
            ...assetRoutes(),
            ...signInRoutes(options, sessionCookies),
            ...accountRoutes(options),
            ...deviceRoutes(options),
            ...connectedDeviceRoutes(options),
            ...messageRoutes(options),
            ...apiAccessRoutes(options),
            ...keyRoutes(options),
            ...webhookRoutes(options),
            ...adminRoutes(options)
        ]))));
    }
};
