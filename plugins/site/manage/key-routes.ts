import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import Boom from '@hapi/boom';
import Joi from 'joi';

import { changeApiKeyScopes, createApiKey, keyScopesDetail, revokeApiKey } from '../../../lib/accounts/api-keys';
import { findFamily } from '../../../lib/accounts/families';
import { livingPersonsPolicyOf } from '../../../lib/privacy/living-persons';
import type { ApiKey, LivingPersonsAccess } from '../../../models/api-key';
import { ownFamilyId, siteUser } from '../credentials';
import type { SiteContext } from '../context';
import { sentOnce } from '../form-tokens';
import { formAction, redirectWithNotice } from '../form-action';
import { freeText, idParam, ticks, type Refusal } from '../forms';
import { keyRows, operationTicks } from '../key-rows';
import { isolated } from '../isolated';
import { managerPage } from '../route-auth';

interface KeyForm {
    name: string;
    resources: string[];
    operations: string[];
    /** Any string a form sent: the accounts service takes `full` or `redacted` only, and says so on the form. */
    living_persons?: LivingPersonsAccess;
}

const keyForm = Joi.object({ name: freeText('apiKeyName'), resources: ticks, operations: ticks, living_persons: Joi.string().max(64) });
const keyId = { params: Joi.object({ id: idParam }) };

/** API keys of the manager's own family: create (shown once), change scopes (living persons' details with them), revoke. */
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
    async function formPage(request: Request, h: ResponseToolkit, form: KeyForm, options: { key?: ApiKey; error?: Refusal } = {}) {

        const family = await findFamily(context.accounts, ownFamilyId(request));
        const policies = context.policies();
        const scopes = policies.scopes;
        const legacy = options.key?.predates_write_scopes ?? false;
        return h.view('key-form', {
            title: options.key ? `Key “${isolated(options.key.name)}”` : 'New API key',
            key: options.key && (await keyRows(models, scopes, [options.key]))[0],
            apiEnabled: family.api_enabled,
            name: form.name,
            resources: family.api_resources.map((name) => ({ name, checked: form.resources.includes(name) })),
            operations: operationTicks(scopes, form.operations, legacy),
            livingRedacted: form.living_persons === 'redacted',
            living: livingPersonsPolicyOf(policies),
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
                handler: formAction(models, {
                    run(request) {

                        const { name, resources, operations, living_persons: livingPersons } = request.payload as KeyForm;
                        return createApiKey(context.accounts, { familyLongId: ownFamilyId(request), name, resources, operations, livingPersons, createdBy: siteUser(request).id });
                    },
                    refused: async (request, h, refusal) => ({ page: await formPage(request, h, request.payload as KeyForm, { error: refusal }) }),
                    audited: (_request, { apiKey }) => ({ action: 'api_key.create', familyLongId: apiKey.family_long_id, target: apiKey.id, detail: `“${apiKey.name}”: ${keyScopesDetail(apiKey)}` }),
                    // The full key is on this page only: never in a redirect URL, a cookie or the session (hence sentOnce).
                    answer: async (_request, h, { apiKey, key }) => ({
                        page: h.view('key-created', { title: 'Copy your new API key', key, row: (await keyRows(models, context.policies().scopes, [apiKey]))[0] }).code(201),
                        made: apiKey.name
                    })
                })
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
                    return formPage(request, h, { name: key.name, resources: key.resource_scopes, operations: key.operation_scopes, living_persons: key.living_persons }, { key });
                }
            }
        },
        {
            method: 'POST',
            path: '/manage/apis/keys/{id}/scopes',
            options: {
                auth: managerPage,
                validate: { ...keyId, payload: keyForm },
                handler: formAction(models, {
                    async run(request) {

                        const key = await ownKey(request);
                        const { resources, operations, living_persons: livingPersons } = request.payload as KeyForm;
                        return changeApiKeyScopes(context.accounts, key.id, { resources, operations, livingPersons });
                    },
                    // The key's own page again: a key that is not the manager's is a 404 before anything is tried.
                    refused: async (request, h, refusal) => {

                        const key = await ownKey(request);
                        return formPage(request, h, { ...request.payload as KeyForm, name: key.name }, { key, error: refusal });
                    },
                    audited: (_request, key) => ({ action: 'api_key.change_scopes', familyLongId: key.family_long_id, target: key.id, detail: keyScopesDetail(key) }),
                    answer: (_request, h) => redirectWithNotice(h, '/manage/apis', 'key-scopes-changed')
                })
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
                handler: formAction(models, {
                    // Sent twice (a double click, a second tab, at once even), the form finds the key revoked: done already, not a 404, and recorded once.
                    run: async (request) => revokeApiKey(context.accounts, (await ownKey(request, { orRevoked: true })).id, siteUser(request).id),
                    audited: (_request, { apiKey, changed }) => (changed ? { action: 'api_key.revoke', familyLongId: apiKey.family_long_id, target: apiKey.id, detail: `“${apiKey.name}”` } : undefined),
                    answer: (_request, h) => redirectWithNotice(h, '/manage/apis', 'key-revoked')
                })
            }
        }
    ];
}
