import type { Request, ResponseObject, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';

import { restoreFamilyMessaging, suspenderName, suspendFamilyMessaging } from '../../../lib/accounts/families';
import { setUserDisabled } from '../../../lib/accounts/users';
import { ServiceError } from '../../../lib/errors';
import type { Models } from '../../../models';
import type { Family } from '../../../models/family';
import type { SiteContext } from '../context';
import { siteUser } from '../credentials';
import { formAction, redirectWithNotice } from '../form-action';
import { found, freeText, idParam, type Refusal } from '../forms';
import { superAdminPage } from '../route-auth';

/** The family's page again, saying why a form was refused. */
type RefusedPage = (request: Request, h: ResponseToolkit, refusal: Refusal) => Promise<ResponseObject>;

const familyId = { params: Joi.object({ id: idParam }) };
const familyUser = { params: Joi.object({ id: idParam, userId: idParam }) };

/** What a family's page shows of its account state: its messaging, and its users with whether each is disabled. */
export async function familyAccountState(models: Models, family: Family, viewer: string) {

    const users = await models.User.findAll({ where: { family_long_id: family.family_long_id }, order: [['email', 'ASC']] });
    return {
        messaging: {
            suspendedAt: family.messaging_suspended_at,
            suspendedBy: family.messaging_suspended_at ? await suspenderName(models, family.messaging_suspended_by) : undefined,
            suspensionReason: family.messaging_suspension_reason
        },
        users: users.map((user) => ({ id: user.id, email: user.email, role: user.role, disabledAt: user.disabled_at, isViewer: user.id === viewer }))
    };
}

/** A super-admin suspends and restores a family's messaging, and disables and enables its users, on the family's page. */
export function accountStateRoutes(context: SiteContext, refusedPage: RefusedPage): ServerRoute[] {

    const { models } = context;
    const pageOf = (request: Request) => `/admin/apis/families/${request.params.id as string}`;

    const userSwitch = (disabled: boolean): ServerRoute => ({
        method: 'POST',
        path: `/admin/apis/families/{id}/users/{userId}/${disabled ? 'disable' : 'enable'}`,
        options: {
            auth: superAdminPage,
            validate: familyUser,
            handler: formAction(models, {
                run: (request) => {

                    const userId = request.params.userId as string;
                    if (disabled && userId === siteUser(request).id) {
                        // The session that asks would end with it, and nobody might be left to enable it again.
                        throw new ServiceError('invalid_request', 'You cannot disable your own account: another super-admin, or an operator with the CLI, can.');
                    }

                    return setUserDisabled(context.accounts, userId, disabled, { familyLongId: request.params.id as string });
                },
                refused: refusedPage,
                audited: (_request, { user, changed }) => (changed ? { action: disabled ? 'user.disable' : 'user.enable', familyLongId: user.family_long_id, target: user.id, detail: user.email } : undefined),
                answer: (request, h, { changed }) => redirectWithNotice(h, pageOf(request), disabled ? (changed ? 'user-disabled' : 'user-already-disabled') : (changed ? 'user-enabled' : 'user-not-disabled'))
            })
        }
    });

    return [
        {
            method: 'POST',
            path: '/admin/apis/families/{id}/messaging/suspend',
            options: {
                auth: superAdminPage,
                validate: { ...familyId, payload: Joi.object({ reason: freeText('suspensionReason') }) },
                handler: formAction(models, {
                    run: (request) => suspendFamilyMessaging(context.accounts, request.params.id as string, (request.payload as { reason: string }).reason, siteUser(request).id),
                    refused: refusedPage,
                    // Suspended already (another super-admin, another tab): that suspension stands, and nothing new happened to record.
                    audited: (_request, { family, changed }) => (changed ? { action: 'family.suspend_messaging', familyLongId: family.family_long_id, target: family.family_long_id, detail: family.messaging_suspension_reason } : undefined),
                    answer: (request, h, { changed }) => redirectWithNotice(h, pageOf(request), changed ? 'messaging-suspended' : 'messaging-already-suspended')
                })
            }
        },
        {
            method: 'POST',
            path: '/admin/apis/families/{id}/messaging/restore',
            options: {
                auth: superAdminPage,
                validate: familyId,
                handler: formAction(models, {
                    run: (request) => found(restoreFamilyMessaging(context.accounts, request.params.id as string)),
                    audited: (_request, { family, changed }) => (changed ? { action: 'family.restore_messaging', familyLongId: family.family_long_id, target: family.family_long_id } : undefined),
                    answer: (request, h, { changed }) => redirectWithNotice(h, pageOf(request), changed ? 'messaging-restored' : 'messaging-not-suspended')
                })
            }
        },
        userSwitch(true),
        userSwitch(false)
    ];
}
