import type { Request } from '@hapi/hapi';

import { audit } from '../../lib/audit-log';
import type { WebhookEndpoint } from '../../models/webhook-endpoint';
import type { WebhooksContext } from './context';
import { removeEndpoint } from './endpoints';

/**
 * A manager's removal of an endpoint with its audit entry, committed together: the JSON route
 * and the hosted site's delete form alike. The entry names the URL, since nothing else is left.
 */
export function removeEndpointAudited(context: WebhooksContext, request: Request, familyLongId: string, id: string): Promise<WebhookEndpoint> {

    return removeEndpoint(context, familyLongId, id,
        (removed, transaction) => audit(context.models, request, { action: 'webhook.delete', familyLongId, target: removed.id, detail: removed.url }, transaction));
}
