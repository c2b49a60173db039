import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import Boom from '@hapi/boom';
import Joi from 'joi';

import { changeApiKeyScopes, createApiKey, revokeApiKey } from '../../../lib/accounts/api-keys';
import { findFamily } from '../../../lib/accounts/families';
import type { ApiKey } from '../../../models/api-key';
import { audit } from '../../../lib/audit-log';
import { ownFamilyId, siteUser } from '../credentials';
import type { SiteContext } from '../context';
import { sentOnce } from '../form-tokens';
import { freeText, idParam, refusalOf, ticks } from '../forms';
import { keyRows, operationTicks } from '../key-rows';
import { isolated } from '../isolated';
import { withNotice } from '../notices';
import { managerPage } from '../route-auth';

interface KeyForm {
    name: string;
    resources: string[];
    operations: string[];
}

const keyForm = Joi.object({ name: freeText('apiKeyName'), resources: ticks, operations: ticks });
const keyId = { params: Joi.object({ id: idParam }) };

/** API keys of the manager's own family: create (shown once), change scopes, revoke. */
export function keyRoutes(context: SiteContext): ServerRoute[] {

    const { models } = context;

    /** A live key of the manager's family (or a revoked one too, when asked); any other id, another family's included, is a 404. */
    async function ownKey(request: Request, options: { orRevoked?: boolean } = {}): Promise<ApiKey> {

        const key = await models.ApiKey.findOne({ where: { id: request.params.id as string, family_long_id: ownFamilyId(request),
            ...(options.orRevoked ? {} : { revoked_at: null }) } });
        if (!key) {
            throw Boom.notFound();
        }

        return key;
    }

    /** The create form, or the scopes form of `key`, ticked as `form` says. */
    async function formPage(request: Request, h: ResponseToolkit, form: KeyForm, options: { key?: ApiKey; error?: { message: string; statusCode: number } } = {}) {

        const family = await findFamily(context.accounts, ownFamilyId(request));
        const scopes = context.policies().scopes;
        const legacy = options.key?.predates_write_scopes ?? false;
        return h.view('key-form', {
            title: options.key ? `Key “${isolated(options.key.name)}”` : 'New API key',
            key: options.key && (await keyRows(models, scopes, [options.key]))[0],
            apiEnabled: family.api_enabled,
            name: form.name,
            resources: family.api_resources.map((name) => ({ name, checked: form.resources.includes(name) })),
            operations: operationTicks(scopes, form.operations, legacy),
            legacy,
            error: options.error?.message
        }).code(options.error?.statusCode ?? 200);
    }

    return [
        {
            method: 'GET',
            path: '/manage/apis/keys/new',
            options: {
                auth: managerPage,
                handler: (request, h) => formPage(request, h, { name: '', resources: [], operations: context.policies().scopes.default_key_operations })
            }
        },
        {
            method: 'POST',
            path: '/manage/apis/keys',
            options: sentOnce(context, {
                auth: managerPage,
                validate: { payload: keyForm },
                makes: 'api-key',
                back: () => '/manage/apis',
                async handler(request, h) {

                    const form = request.payload as KeyForm;
                    const familyLongId = ownFamilyId(request);
                    let created;
                    try {
                        created = await createApiKey(context.accounts, { familyLongId, name: form.name, resources: form.resources,
                            operations: form.operations, createdBy: siteUser(request).id });
                    }
                    catch (error) {
                        return { page: await formPage(request, h, form, { error: refusalOf(error) }) };
                    }

                    const { apiKey, key } = created;
                    await audit(models, request, { action: 'api_key.create', familyLongId, target: apiKey.id, detail: `“${apiKey.name}”: ${apiKey.resource_scopes.join(', ')} / ${apiKey.operation_scopes.join(', ')}` });
                    // The full key is on this page only: never in a redirect URL, a cookie or the session (hence sentOnce).
                    return { page: h.view('key-created', { title: 'Copy your new API key', key, row: (await keyRows(models, context.policies().scopes, [apiKey]))[0] }).code(201), made: apiKey.name };
                }
            })
        },
        {
            method: 'GET',
            path: '/manage/apis/keys/{id}',
            options: {
                auth: managerPage,
                validate: keyId,
                async handler(request, h) {

                    const key = await ownKey(request);
                    return formPage(request, h, { name: key.name, resources: key.resource_scopes, operations: key.operation_scopes }, { key });
                }
            }
        },
        {
            method: 'POST',
            path: '/manage/apis/keys/{id}/scopes',
            options: {
                auth: managerPage,
                validate: { ...keyId, payload: keyForm },
                async handler(request, h) {

                    const key = await ownKey(request);
                    const form = request.payload as KeyForm;
                    try {
                        await changeApiKeyScopes(context.accounts, key.id, { resources: form.resources, operations: form.operations });
                    }
                    catch (error) {
                        return formPage(request, h, { ...form, name: key.name }, { key, error: refusalOf(error) });
                    }

                    await audit(models, request, { action: 'api_key.change_scopes', familyLongId: key.family_long_id, target: key.id, detail: `${form.resources.join(', ')} / ${form.operations.join(', ')}` });
                    return h.redirect(withNotice('/manage/apis', 'key-scopes-changed'));
                }
            }
        },
        {
            method: 'GET',
            path: '/manage/apis/keys/{id}/revoke',
            options: {
                auth: managerPage,
                validate: keyId,
                async handler(request, h) {

                    const [row] = await keyRows(models, context.policies().scopes, [await ownKey(request)]);
                    return h.view('key-revoke', { title: 'Revoke API key', row, action: `/manage/apis/keys/${row.id}/revoke`, cancel: '/manage/apis' });
                }
            }
        },
        {
            method: 'POST',
            path: '/manage/apis/keys/{id}/revoke',
            options: {
                auth: managerPage,
                validate: keyId,
                async handler(request, h) {

                    // Sent twice (a double click, a second tab, at once even), the form finds the key revoked: done already, not a 404, and recorded once.
                    const key = await ownKey(request, { orRevoked: true });
                    if ((await revokeApiKey(context.accounts, key.id, siteUser(request).id)).changed) {
                        await audit(models, request, { action: 'api_key.revoke', familyLongId: key.family_long_id, target: key.id, detail: `“${key.name}”` });
                    }

                    return h.redirect(withNotice('/manage/apis', 'key-revoked'));
                }
            }
        }
    ];
}
