import type { Request } from '@hapi/hapi';

import { principalOf } from '../../gateway/principal';
import type { MessagingActor, MessagingContext } from '../../lib/messaging/context';

/** The messaging services of the deployment (lib/messaging/context.ts). */
export const messagingOf = (request: Request): MessagingContext => request.server.app.services.messaging;

/**
 * The user a device token speaks for, as the messaging services take them. Not a manager: only managing a group
 * asks (managingActor), so the other routes need not read the role.
 */
export function actorOf(request: Request): MessagingActor {

    const { user, family } = principalOf(request);
    return { userId: user!.id, familyLongId: family.familyLongId, isManager: false };
}

/** The actor with their role read now: a family manager may rename any group and change its members. */
export async function managingActor(request: Request): Promise<MessagingActor> {

    const actor = actorOf(request);
    const user = await messagingOf(request).models.User.findOne({ where: { id: actor.userId, family_long_id: actor.familyLongId }, attributes: ['role'] });
    return { ...actor, isManager: user?.role === 'manager' };
}
