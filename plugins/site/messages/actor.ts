import type { Lifecycle, Request, ResponseToolkit } from '@hapi/hapi';

import { ServiceError } from '../../../lib/errors';
import type { MessagingActor } from '../../../lib/messaging/context';
import type { User } from '../../../models/user';
import type { SiteContext } from '../context';
import { siteUser } from '../credentials';

/**
 * Why this user may not use messaging now, in words; undefined when they may. Until account state has a shared
 * rule (users disabled, families whose messaging is suspended), a disabled account is the one refusal.
 */
export function messagingRefusal(user: User): ServiceError | undefined {

    if (user.disabled_at) {
        return new ServiceError('account_disabled', 'Your account is disabled, so messaging is closed to it. A family manager or the service\'s administrators can tell you why.', 403);
    }

    return undefined;
}

/**
 * The signed-in user as the messaging services' actor: a user of a family whose messaging is open to them.
 * Anyone else gets a page that says why (a 403 in words), not the bare "Not allowed".
 */
export async function messagingActor(context: SiteContext, request: Request): Promise<MessagingActor> {

    const { id, familyLongId, role } = siteUser(request);
    if (!familyLongId) {
        throw new ServiceError('forbidden', 'Messages are for the members of a family, and this account belongs to none. Sign in with a family account to message.', 403);
    }

    const refusal = messagingRefusal((await context.models.User.findByPk(id))!);
    if (refusal) {
        throw refusal;
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
