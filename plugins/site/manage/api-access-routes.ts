import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';

import { listDeviceGrants } from '../../../lib/accounts/devices';
import { disableApi, enableApi } from '../../../lib/accounts/families';
import { ownFamilyId } from '../credentials';
import type { SiteContext } from '../context';
import { formAction, redirectWithNotice } from '../form-action';
import { ticks, type Refusal } from '../forms';
import { managerPage } from '../route-auth';
import { endpointRow, hasWebhooks, webhookServices } from '../webhooks';
import { apiOverview } from './overview';

/** Manage > APIs & Connectors: the family's plan, API access and its resources. */
export function apiAccessRoutes(context: SiteContext): ServerRoute[] {

    const overviewPage = async (request: Request, h: ResponseToolkit, error?: Refusal) => h.view('manage-apis', {
        title: 'APIs & Connectors',
        ...await apiOverview(context, ownFamilyId(request)),
        webhooksAvailable: hasWebhooks(request),
        webhooks: hasWebhooks(request) ? (await webhookServices(request).listEndpoints(ownFamilyId(request))).map(endpointRow) : undefined,
        devices: await listDeviceGrants(context.accounts, { familyLongId: ownFamilyId(request) }),
        error: error?.message
    }).code(error?.statusCode ?? 200);

    return [
        {
            method: 'GET',
            path: '/manage/apis',
            options: {
                auth: managerPage,
                handler: (request, h) => overviewPage(request, h)
            }
        },
        {
            method: 'POST',
            path: '/manage/apis/enable',
            options: {
                auth: managerPage,
                validate: { payload: Joi.object({ resources: ticks }) },
                handler: formAction(context.models, {
                    run: (request) => enableApi(context.accounts, ownFamilyId(request), (request.payload as { resources: string[] }).resources),
                    refused: overviewPage,
                    audited: (request, family) => ({ action: 'api.enable', familyLongId: family.family_long_id, detail: `Resources: ${family.api_resources.join(', ')}` }),
                    answer: (_request, h) => redirectWithNotice(h, '/manage/apis', 'api-enabled')
                })
            }
        },
        {
            method: 'POST',
            path: '/manage/apis/disable',
            options: {
                auth: managerPage,
                handler: formAction(context.models, {
                    run: (request) => disableApi(context.accounts, ownFamilyId(request)),
                    audited: (request) => ({ action: 'api.disable', familyLongId: ownFamilyId(request) }),
                    answer: (_request, h) => redirectWithNotice(h, '/manage/apis', 'api-disabled')
                })
            }
        }
    ];
}
