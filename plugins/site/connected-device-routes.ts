import type { Request, ServerRoute } from '@hapi/hapi';
import Boom from '@hapi/boom';
import Joi from 'joi';

import { listDeviceGrants, revokeDeviceGrant } from '../../lib/accounts/devices';
import { ownFamilyId, siteUser } from './credentials';
import type { SiteContext } from './context';
import { formAction, redirectWithNotice } from './form-action';
import { idParam } from './forms';
import { managerPage, signedInPage, superAdminPage } from './route-auth';

/** Whose devices a page shows and disconnects: a user's own, or a family's. */
type Whose = { user_id: string } | { family_long_id: string };

/**
 * A Disconnect form's handler: revokes the grant (RFC 7009: its tokens are refused from their next request, on every
 * instance) if it is one of `whose` grants, disconnected already or not, else the 404 page; audited once, when it
 * changed something.
 */
function disconnect(context: SiteContext, whose: (request: Request) => Whose, back: (request: Request) => string) {

    return formAction(context.models, {
        async run(request) {

            const grant = await context.models.DeviceGrant.findOne({ where: { id: request.params.grantId as string, ...whose(request) } });
            if (!grant) {
                throw Boom.notFound();
            }

            return revokeDeviceGrant(context.accounts, grant.id, siteUser(request).id);
        },
        // Disconnected already (the device itself, another tab, a manager): nothing new to record.
        audited: (_request, { grant, changed }) => (changed ? { action: 'device.revoke', familyLongId: grant.familyLongId, target: grant.id, detail: `${grant.clientName} on "${grant.deviceName}" of ${grant.userEmail}` } : undefined),
        answer: (request, h, { changed }) => redirectWithNotice(h, back(request), changed ? 'device-disconnected' : 'device-already-disconnected')
    });
}

const grantParam = { params: Joi.object({ grantId: idParam }) };

/** Connected devices: a user's own on /account/devices, a family's for its managers and for super-admins; each can disconnect them. */
export function connectedDeviceRoutes(context: SiteContext): ServerRoute[] {

    return [
        {
            method: 'GET',
            path: '/account/devices',
            options: {
                auth: signedInPage,
                handler: async (request, h) => h.view('account-devices', { title: 'Connected devices', devices: await listDeviceGrants(context.accounts, { userId: siteUser(request).id }) })
            }
        },
        {
            method: 'POST',
            path: '/account/devices/{grantId}/disconnect',
            options: {
                auth: signedInPage,
                validate: grantParam,
                handler: disconnect(context, (request) => ({ user_id: siteUser(request).id }), () => '/account/devices')
            }
        },
        {
            method: 'POST',
            path: '/manage/apis/devices/{grantId}/disconnect',
            options: {
                auth: managerPage,
                validate: grantParam,
                handler: disconnect(context, (request) => ({ family_long_id: ownFamilyId(request) }), () => '/manage/apis')
            }
        },
        {
            method: 'POST',
            path: '/admin/apis/families/{id}/devices/{grantId}/disconnect',
            options: {
                auth: superAdminPage,
                validate: { params: Joi.object({ id: idParam, grantId: idParam }) },
                handler: disconnect(context, (request) => ({ family_long_id: request.params.id as string }), (request) => `/admin/apis/families/${request.params.id as string}`)
            }
        }
    ];
}
