import type { Request, ServerRoute } from '@hapi/hapi';
import Boom from '@hapi/boom';
import Joi from 'joi';

import { revokeApiKey } from '../../../lib/accounts/api-keys';
import type { ApiKey } from '../../../models/api-key';
import { siteUser } from '../credentials';
import type { SiteContext } from '../context';
import { formAction, redirectWithNotice } from '../form-action';
import { idParam } from '../forms';
import { keyRows } from '../key-rows';
import { superAdminPage } from '../route-auth';

const keyId = { params: Joi.object({ id: idParam }) };

/** A super-admin revokes any family's key, after a confirmation. */
export function adminKeyRoutes(context: SiteContext): ServerRoute[] {

    const { models } = context;

    /** A live key of any family (or a revoked one too, when asked); an unknown id is a 404. */
    async function familyKey(request: Request, options: { orRevoked?: boolean } = {}): Promise<ApiKey> {

        const key = await models.ApiKey.findOne({ where: { id: request.params.id as string, ...(options.orRevoked ? {} : { revoked_at: null }) } });
        if (!key) {
            throw Boom.notFound();
        }

        return key;
    }

    return [
        {
            method: 'GET',
            path: '/admin/apis/keys/{id}/revoke',
            options: {
                auth: superAdminPage,
                validate: keyId,
                async handler(request, h) {

                    const key = await familyKey(request);
                    const [row] = await keyRows(models, context.policies().scopes, [key]);
                    return h.view('key-revoke', { title: 'Revoke API key', row, action: `/admin/apis/keys/${key.id}/revoke`, cancel: `/admin/apis/families/${key.family_long_id}` });
                }
            }
        },
        {
            method: 'POST',
            path: '/admin/apis/keys/{id}/revoke',
            options: {
                auth: superAdminPage,
                validate: keyId,
                handler: formAction(models, {
                    // Sent twice (a double click, a second tab, at once even), the form finds the key revoked: done already, not a 404, and recorded once.
                    run: async (request) => revokeApiKey(context.accounts, (await familyKey(request, { orRevoked: true })).id, siteUser(request).id),
                    audited: (_request, { apiKey, changed }) => (changed ? { action: 'api_key.revoke', familyLongId: apiKey.family_long_id, target: apiKey.id, detail: `“${apiKey.name}”, by a super-admin` } : undefined),
                    answer: (_request, h, { apiKey }) => redirectWithNotice(h, `/admin/apis/families/${apiKey.family_long_id}`, 'key-revoked')
                })
            }
        }
    ];
}
