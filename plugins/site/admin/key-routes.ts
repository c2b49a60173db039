import type { Request, ServerRoute } from '@hapi/hapi';
import Boom from '@hapi/boom';
import Joi from 'joi';

import { revokeApiKey } from '../../../lib/accounts/api-keys';
import type { ApiKey } from '../../../models/api-key';
import { audit } from '../../../lib/audit-log';
import { siteUser } from '../credentials';
import type { SiteContext } from '../context';
import { idParam } from '../forms';
import { keyRows } from '../key-rows';
import { withNotice } from '../notices';
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
                async handler(request, h) {

                    // Sent twice (a double click, a second tab, at once even), the form finds the key revoked: done already, not a 404, and recorded once.
                    const key = await familyKey(request, { orRevoked: true });
                    if ((await revokeApiKey(context.accounts, key.id, siteUser(request).id)).changed) {
                        await audit(models, request, { action: 'api_key.revoke', familyLongId: key.family_long_id, target: key.id, detail: `“${key.name}”, by a super-admin` });
                    }

                    return h.redirect(withNotice(`/admin/apis/families/${key.family_long_id}`, 'key-revoked'));
                }
            }
        }
    ];
}
