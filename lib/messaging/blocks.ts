import type { UserBlock } from '../../models/user-block';
import { ServiceError } from '../errors';
import { familyUser } from './access';
import type { MessagingActor, MessagingContext } from './context';
import { inMessagingWrite } from './conversations';

/**
 * Blocks another user of the family: they can no longer start a direct conversation with the actor
 * or write in theirs, and the actor no longer sees their messages in groups. Blocking someone
 * blocked already changes nothing (`changed` false).
 */
export function blockUser(context: MessagingContext, actor: MessagingActor, userId: string): Promise<{ block: UserBlock; changed: boolean }> {

    if (userId === actor.userId) {
        throw new ServiceError('invalid_request', 'user_id: you cannot block yourself.');
    }

    return inMessagingWrite(context, actor.familyLongId, async (transaction, log) => {

        await familyUser(context.models, actor, userId, transaction);
        const existing = await context.models.UserBlock.findOne({ where: { blocker_id: actor.userId, blocked_id: userId }, transaction });
        if (existing) {
            return { block: existing, changed: false };
        }

        const block = await context.models.UserBlock.create(
            { blocker_id: actor.userId, blocked_id: userId, family_long_id: actor.familyLongId, created_at: new Date() },
            { transaction }
        );
        await log.record({ conversation_id: null, user_id: actor.userId, kind: 'block', action: 'created', record_id: userId, revision: 1 });
        return { block, changed: true };
    });
}

/** Lifts a block; lifting one that does not stand changes nothing (`changed` false). */
export function unblockUser(context: MessagingContext, actor: MessagingActor, userId: string): Promise<{ changed: boolean }> {

    return inMessagingWrite(context, actor.familyLongId, async (transaction, log) => {

        await familyUser(context.models, actor, userId, transaction);
        const removed = await context.models.UserBlock.destroy({ where: { blocker_id: actor.userId, blocked_id: userId }, transaction });
        if (removed) {
            await log.record({ conversation_id: null, user_id: actor.userId, kind: 'block', action: 'deleted', record_id: userId, revision: 1 });
        }

        return { changed: removed > 0 };
    });
}

/** The users the actor has blocked, the most recent first. */
export function listBlocks(context: MessagingContext, actor: MessagingActor): Promise<UserBlock[]> {

    return context.models.UserBlock.findAll({ where: { blocker_id: actor.userId, family_long_id: actor.familyLongId }, order: [['created_at', 'DESC']] });
}
