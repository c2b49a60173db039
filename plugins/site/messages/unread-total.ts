import type { Request } from '@hapi/hapi';

import { unreadCounts } from '../../../lib/messaging/conversations';
import type { SiteContext } from '../context';
import type { SiteCredentials } from '../credentials';

/**
 * How many messages the signed-in family user has not read, for the header's Messages link; undefined
 * for a user of no family, and on an error page (the database may be what failed).
 */
export async function unreadTotal(context: SiteContext, request: Request, credentials: SiteCredentials | undefined): Promise<number | undefined> {

    const user = credentials?.user;
    const status = (request.response as { statusCode?: number } | null)?.statusCode ?? 200;
    if (!user?.familyLongId || status >= 400) {
        return undefined;
    }

    const counts = await unreadCounts(context.messaging, { userId: user.id, familyLongId: user.familyLongId, isManager: user.role === 'manager' });
    return [...counts.values()].reduce((sum, count) => sum + count, 0);
}
