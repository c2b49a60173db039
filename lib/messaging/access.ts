import { Op, literal, type Transaction } from 'sequelize';

import type { Models } from '../../models';
import type { Conversation } from '../../models/conversation';
import type { User } from '../../models/user';
import { ServiceError } from '../errors';
import type { MessagingActor } from './context';

/** 404 alike for a conversation of another family, one that does not exist, and one the actor is not in: none is a leak. */
const noConversation = (id: string) => new ServiceError('not_found', `No conversation ${id}.`, 404);

/** The conversation, when the actor is one of its members; 404 otherwise. */
export async function memberConversation(models: Models, actor: MessagingActor, conversationId: string, transaction?: Transaction): Promise<Conversation> {

    const escape = (value: string) => models.Conversation.sequelize!.escape(value);
    const conversation = await models.Conversation.findOne({
        where: {
            id: conversationId,
            family_long_id: actor.familyLongId,
            [Op.and]: literal(`EXISTS (SELECT 1 FROM conversation_members WHERE conversation_id = ${escape(conversationId)} AND user_id = ${escape(actor.userId)})`)
        },
        transaction
    });
    if (!conversation) {
        throw noConversation(conversationId);
    }

    return conversation;
}

/** A user of the actor's family; 404 for anyone else. */
export async function familyUser(models: Models, actor: MessagingActor, userId: string, transaction?: Transaction): Promise<User> {

    const user = await models.User.findOne({ where: { id: userId, family_long_id: actor.familyLongId }, transaction });
    if (!user) {
        throw new ServiceError('not_found', `No user ${userId} in this family.`, 404);
    }

    return user;
}

/** The ids of the users `userId` has blocked. */
export async function blockedBy(models: Models, userId: string, transaction?: Transaction): Promise<Set<string>> {

    const blocks = await models.UserBlock.findAll({ where: { blocker_id: userId }, attributes: ['blocked_id'], transaction });
    return new Set(blocks.map((block) => block.blocked_id));
}

/** Whether either of two users has blocked the other: then neither may start or write in their direct conversation. */
export async function eitherBlocked(models: Models, one: string, other: string, transaction?: Transaction): Promise<'by_other' | 'by_actor' | undefined> {

    const blocks = await models.UserBlock.findAll({
        where: { [Op.or]: [{ blocker_id: one, blocked_id: other }, { blocker_id: other, blocked_id: one }] },
        attributes: ['blocker_id'],
        transaction
    });
    if (blocks.some((block) => block.blocker_id === other)) {
        return 'by_other';
    }

    return blocks.length > 0 ? 'by_actor' : undefined;
}

/** The 403 blocked a direct conversation's write gets while a block stands between its two people. */
export function blockedError(by: 'by_other' | 'by_actor'): ServiceError {

    return new ServiceError('blocked', by === 'by_actor' ?
        'You have blocked this person: unblock them to write to them.' :
        'This person does not accept your messages.', 403);
}
