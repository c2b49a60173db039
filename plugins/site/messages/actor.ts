import type { Lifecycle, Request, ResponseToolkit } from '@hapi/hapi';

import { messagingRefusal } from '../../../lib/accounts/messaging-access';
import { ServiceError } from '../../../lib/errors';
import type { MessagingActor } from '../../../lib/messaging/context';
import type { SiteContext } from '../context';
import { siteUser } from '../credentials';

/**
 * The signed-in user as the messaging services' actor: a user of a family, neither disabled nor of a family whose
 * messaging is suspended (messagingRefusal(), the API's rule too). Anyone else gets a page that says why (a 403 in
 * words), not the bare "Not allowed".
 */
export async function messagingActor(context: SiteContext, request: Request): Promise<MessagingActor> {

    const { id, familyLongId, role } = siteUser(request);
    if (!familyLongId) {
        throw new ServiceError('forbidden', 'Messages are for the members of a family, and this account belongs to none. Sign in with a family account to message.', 403);
    }

    const [user, family] = await Promise.all([context.models.User.findByPk(id), context.models.Family.findByPk(familyLongId)]);
    const refusal = messagingRefusal(user!, family!);
    if (refusal) {
        throw new ServiceError(refusal.code, refusal.message, 403);
    }

    return { userId: id, familyLongId, isManager: role === 'manager' };
}

const actors = new WeakMap<Request, MessagingActor>();

/** The step every /messages route runs before its handler: it admits only a family user whose messaging is open (messagingActor). */
export function messagingGate(context: SiteContext): Lifecycle.Method {

    return async (request: Request, h: ResponseToolkit) => {

        actors.set(request, await messagingActor(context, request));
        return h.continue;
    };
}

/** The actor the gate admitted. */
export function actorOf(request: Request): MessagingActor {

    return actors.get(request)!;
}
