import type { Request } from '@hapi/hapi';

import { principalOf } from '../../gateway/principal';
import type { MessagingActor } from '../../lib/messaging/context';

/** The user a device token speaks for, as the messaging services take them. */
export function actorOf(request: Request): MessagingActor {

    const { user, family } = principalOf(request);
    // Managing a group's members is no route of a device's outbox, conflicts, sync or stream: no need to read the role here.
    return { userId: user!.id, familyLongId: family.familyLongId, isManager: false };
}
