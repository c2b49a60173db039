import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';

import { disableApi, enableApi } from '../../../lib/accounts/families';
import { audit } from '../../../lib/audit-log';
import { ownFamilyId } from '../credentials';
import type { SiteContext } from '../context';
import { refusalOf, ticks } from '../forms';
import { withNotice } from '../notices';
import { managerPage } from '../route-auth';
import { endpointRow, hasWebhooks, webhookServices } from '../webhooks';
import { apiOverview } from './overview';

/** Manage > APIs & Connectors: the family's plan, API access and its resources. */
export function apiAccessRoutes(context: SiteContext): ServerRoute[] {

    const overviewPage = async (request: Request, h: ResponseToolkit, error?: { message: string; statusCode: number }) => h.view('manage-apis', {
        title: 'APIs & Connectors',
        ...await apiOverview(context, ownFamilyId(request)),
        webhooksAvailable: hasWebhooks(request),
        webhooks: hasWebhooks(request) ? (await webhookServices(request).listEndpoints(ownFamilyId(request))).map(endpointRow) : undefined,
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
                async handler(request, h) {

                    const { resources } = request.payload as { resources: string[] };
                    try {
                        await enableApi(context.accounts, ownFamilyId(request), resources);
                    }
                    catch (error) {
                        return overviewPage(request, h, refusalOf(error));
                    }

                    await audit(context.models, request, { action: 'api.enable', familyLongId: ownFamilyId(request), detail: `Resources: ${resources.join(', ')}` });
                    return h.redirect(withNotice('/manage/apis', 'api-enabled'));
                }
            }
        },
        {
            method: 'POST',
            path: '/manage/apis/disable',
            options: {
                auth: managerPage,
                async handler(request, h) {

                    await disableApi(context.accounts, ownFamilyId(request));
                    await audit(context.models, request, { action: 'api.disable', familyLongId: ownFamilyId(request) });
                    return h.redirect(withNotice('/manage/apis', 'api-disabled'));
                }
            }
        }
    ];
}
