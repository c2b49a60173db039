import { Op, QueryTypes, type Transaction } from 'sequelize';

import type { Conversation } from '../../models/conversation';
import { ServiceError } from '../errors';
import { recordId } from '../ids';
import { hasMoreCharactersThan } from '../text-length';
import { blockedError, eitherBlocked, familyUser, memberConversation } from './access';
import { openMessagingChangeLog, type MessagingChangeLog } from './changes';
import type { MessagingActor, MessagingContext } from './context';

/** A conversation as the actor sees it: with its members and how many messages they have not read. */
export interface ConversationView {
    conversation: Conversation;
    memberIds: string[];
    unreadCount: number;
}

const policyOf = (context: MessagingContext) => context.policyStore.current().messaging.conversations;

/** Runs a messaging write of the actor's family: its change log opened first, as every messaging write does. */
export function inMessagingWrite<T>(context: MessagingContext, familyLongId: string, work: (transaction: Transaction, log: MessagingChangeLog) => Promise<T>): Promise<T> {

    return context.transaction(async (transaction) => work(transaction, await openMessagingChangeLog(context.models, context.bus, familyLongId, transaction)));
}

function checkedTitle(context: MessagingContext, title: string): string {

    const trimmed = title.trim();
    const limit = policyOf(context).group_title_max_characters;
    if (!trimmed || hasMoreCharactersThan(trimmed, limit)) {
        throw new ServiceError('invalid_request', `title: a group's name is 1 to ${limit} characters.`);
    }

    return trimmed;
}

async function addMembers(context: MessagingContext, conversation: Conversation, userIds: readonly string[], addedBy: string, transaction: Transaction,
    log: MessagingChangeLog): Promise<void> {

    const now = new Date();
    for (const userId of userIds) {
        const member = { conversation_id: conversation.id, user_id: userId, family_long_id: conversation.family_long_id, added_by: addedBy, joined_at: now };
        await context.models.ConversationMember.create(member, { transaction });
        await log.record({ conversation_id: conversation.id, kind: 'member', action: 'created', record_id: userId, revision: conversation.revision });
    }
}

/** A conversation the actor starts, with its members, recorded in the change log. */
async function newConversation(context: MessagingContext, actor: MessagingActor, fields: Pick<Conversation, 'kind' | 'title' | 'direct_key'>, members: readonly string[],
    transaction: Transaction, log: MessagingChangeLog): Promise<Conversation> {

    const now = new Date();
    const conversation = await context.models.Conversation.create({
        ...fields, id: recordId('cnv'), family_long_id: actor.familyLongId, created_by: actor.userId, revision: 1, created_at: now, updated_at: now
    }, { transaction });
    await log.record({ conversation_id: conversation.id, kind: 'conversation', action: 'created', record_id: conversation.id, revision: 1 });
    await addMembers(context, conversation, members, actor.userId, transaction, log);
    return conversation;
}

/** The direct conversation of the actor and another user of the family: the one they have, or a new one (`created`). */
export async function startDirectConversation(context: MessagingContext, actor: MessagingActor, otherUserId: string): Promise<{ conversation: Conversation; created: boolean }> {

    if (otherUserId === actor.userId) {
        throw new ServiceError('invalid_request', 'user_id: a direct conversation is with someone else.');
    }

    const directKey = [actor.userId, otherUserId].sort().join(':');
    return inMessagingWrite(context, actor.familyLongId, async (transaction, log) => {

        await familyUser(context.models, actor, otherUserId, transaction);
        const existing = await context.models.Conversation.findOne({ where: { family_long_id: actor.familyLongId, direct_key: directKey }, transaction });
        if (existing) {
            return { conversation: existing, created: false };
        }

        const block = await eitherBlocked(context.models, actor.userId, otherUserId, transaction);
        if (block) {
            throw blockedError(block);
        }

        const conversation = await newConversation(context, actor, { kind: 'direct', title: null, direct_key: directKey }, [actor.userId, otherUserId], transaction, log);
        return { conversation, created: true };
    });
}

/** A new named group of the actor and `memberIds` (users of the family). */
export async function createGroup(context: MessagingContext, actor: MessagingActor, title: string, memberIds: readonly string[]): Promise<Conversation> {

    const name = checkedTitle(context, title);
    const members = [...new Set([actor.userId, ...memberIds])];
    const limit = policyOf(context).group_max_members;
    if (members.length > limit) {
        throw new ServiceError('invalid_request', `member_ids: a group has at most ${limit} members, its creator included.`);
    }

    return inMessagingWrite(context, actor.familyLongId, async (transaction, log) => {

        for (const userId of members) {
            await familyUser(context.models, actor, userId, transaction);
        }

        return newConversation(context, actor, { kind: 'group', title: name, direct_key: null }, members, transaction, log);
    });
}

/** A group's creator and the family's managers manage it; anyone may leave. */
function assertManages(actor: MessagingActor, conversation: Conversation): void {

    if (conversation.kind !== 'group') {
        throw new ServiceError('invalid_request', 'A direct conversation has its two people: start a group to talk with more.');
    }

    if (conversation.created_by !== actor.userId && !actor.isManager) {
        throw new ServiceError('forbidden', 'Only the group\'s creator or a family manager changes its name and members.', 403);
    }
}

async function touched(conversation: Conversation, transaction: Transaction, log: MessagingChangeLog, changes: Partial<Pick<Conversation, 'title'>> = {}): Promise<void> {

    await conversation.update({ ...changes, revision: conversation.revision + 1, updated_at: new Date() }, { transaction });
    await log.record({ conversation_id: conversation.id, kind: 'conversation', action: 'updated', record_id: conversation.id, revision: conversation.revision });
}

export function renameGroup(context: MessagingContext, actor: MessagingActor, conversationId: string, title: string): Promise<Conversation> {

    const name = checkedTitle(context, title);
    return inMessagingWrite(context, actor.familyLongId, async (transaction, log) => {

        const conversation = await memberConversation(context.models, actor, conversationId, transaction);
        assertManages(actor, conversation);
        await touched(conversation, transaction, log, { title: name });
        return conversation;
    });
}

export function addGroupMember(context: MessagingContext, actor: MessagingActor, conversationId: string, userId: string): Promise<Conversation> {

    return inMessagingWrite(context, actor.familyLongId, async (transaction, log) => {

        const conversation = await memberConversation(context.models, actor, conversationId, transaction);
        assertManages(actor, conversation);
        await familyUser(context.models, actor, userId, transaction);
        const count = await context.models.ConversationMember.count({ where: { conversation_id: conversationId }, transaction });
        if (await context.models.ConversationMember.count({ where: { conversation_id: conversationId, user_id: userId }, transaction })) {
            return conversation;
        }

        if (count >= policyOf(context).group_max_members) {
            throw new ServiceError('invalid_request', `A group has at most ${policyOf(context).group_max_members} members.`);
        }

        await touched(conversation, transaction, log);
        await addMembers(context, conversation, [userId], actor.userId, transaction, log);
        return conversation;
    });
}

/**
 * Takes a user out of a group (the creator or a manager), or the actor leaves it. The member's removal is
 * recorded twice: for the members who stay, and for the one who left, who no longer sees the conversation's changes.
 */
export function removeGroupMember(context: MessagingContext, actor: MessagingActor, conversationId: string, userId: string): Promise<Conversation> {

    return inMessagingWrite(context, actor.familyLongId, async (transaction, log) => {

        const conversation = await memberConversation(context.models, actor, conversationId, transaction);
        if (userId !== actor.userId) {
            assertManages(actor, conversation);
        }
        else if (conversation.kind !== 'group') {
            throw new ServiceError('invalid_request', 'A direct conversation cannot be left: block the person instead.');
        }

        const removed = await context.models.ConversationMember.destroy({ where: { conversation_id: conversationId, user_id: userId }, transaction });
        if (!removed) {
            throw new ServiceError('not_found', `User ${userId} is not a member of conversation ${conversationId}.`, 404);
        }

        await touched(conversation, transaction, log);
        await log.record({ conversation_id: conversationId, kind: 'member', action: 'deleted', record_id: userId, revision: conversation.revision });
        await log.record({ conversation_id: null, user_id: userId, kind: 'member', action: 'deleted', record_id: conversationId, revision: conversation.revision });
        return conversation;
    });
}

/** The member ids of each conversation. */
export async function membersOf(context: MessagingContext, conversationIds: readonly string[], transaction?: Transaction): Promise<Map<string, string[]>> {

    const members = new Map<string, string[]>(conversationIds.map((id) => [id, []]));
    if (conversationIds.length > 0) {
        const rows = await context.models.ConversationMember.findAll({ where: { conversation_id: [...conversationIds] }, attributes: ['conversation_id', 'user_id'], order: [['joined_at', 'ASC'], ['user_id', 'ASC']], transaction });
        rows.forEach((row) => members.get(row.conversation_id)!.push(row.user_id));
    }

    return members;
}

/** How many messages of each of the actor's conversations they have not read: others' messages after their last read one, none from someone they blocked. */
export async function unreadCounts(context: MessagingContext, actor: MessagingActor): Promise<Map<string, number>> {

    const rows = await context.models.Message.sequelize!.query<{ conversation_id: string; unread: number | string }>(`
        SELECT m.conversation_id, COUNT(*) AS unread
        FROM messages m
        JOIN conversation_members cm ON cm.conversation_id = m.conversation_id AND cm.user_id = :user
        WHERE m.family_long_id = :family AND m.deleted_at IS NULL AND m.sender_id <> :user
          AND (cm.last_read_at IS NULL OR m.created_at > cm.last_read_at)
          AND m.sender_id NOT IN (SELECT blocked_id FROM user_blocks WHERE blocker_id = :user)
        GROUP BY m.conversation_id`, { replacements: { user: actor.userId, family: actor.familyLongId }, type: QueryTypes.SELECT });
    return new Map(rows.map((row) => [row.conversation_id, Number(row.unread)]));
}

/** The actor's conversations, the most recently active first. */
export async function listConversations(context: MessagingContext, actor: MessagingActor): Promise<ConversationView[]> {

    const memberships = await context.models.ConversationMember.findAll({ where: { user_id: actor.userId, family_long_id: actor.familyLongId }, attributes: ['conversation_id'] });
    const ids = memberships.map((membership) => membership.conversation_id);
    const conversations = ids.length ? await context.models.Conversation.findAll({ where: { id: ids, family_long_id: actor.familyLongId } }) : [];
    const [members, unread] = await Promise.all([membersOf(context, ids), unreadCounts(context, actor)]);
    const activity = (conversation: Conversation) => (conversation.last_message_at ?? conversation.created_at).getTime();
    return conversations
        .sort((a, b) => activity(b) - activity(a) || (a.id < b.id ? -1 : 1))
        .map((conversation) => ({ conversation, memberIds: members.get(conversation.id)!, unreadCount: unread.get(conversation.id) ?? 0 }));
}

/** One of the actor's conversations (404 otherwise). */
export async function getConversation(context: MessagingContext, actor: MessagingActor, conversationId: string): Promise<ConversationView> {

    const conversation = await memberConversation(context.models, actor, conversationId);
    const [members, unread] = await Promise.all([membersOf(context, [conversationId]), unreadCounts(context, actor)]);
    return { conversation, memberIds: members.get(conversationId)!, unreadCount: unread.get(conversationId) ?? 0 };
}

/**
 * Marks the conversation read up to its latest message (what the site does on opening it, and the API's read mark).
 * A mark that moves is a change of the conversation for the actor alone: their other devices learn its unread count.
 */
export async function markRead(context: MessagingContext, actor: MessagingActor, conversationId: string): Promise<void> {

    // Read first, outside a write: the site marks on every view of a conversation, which mostly finds it read already.
    await memberConversation(context.models, actor, conversationId);
    const [newest, member] = await Promise.all([
        context.models.Message.findOne({ where: { conversation_id: conversationId }, order: [['created_at', 'DESC']], attributes: ['created_at'] }),
        context.models.ConversationMember.findOne({ where: { conversation_id: conversationId, user_id: actor.userId }, attributes: ['last_read_at'] })
    ]);
    if (!newest || (member?.last_read_at && member.last_read_at >= newest.created_at)) {
        return;
    }

    await inMessagingWrite(context, actor.familyLongId, async (transaction, log) => {

        const conversation = await memberConversation(context.models, actor, conversationId, transaction);
        const latest = await context.models.Message.findOne({ where: { conversation_id: conversation.id }, order: [['created_at', 'DESC']], attributes: ['created_at'], transaction });
        const [moved] = latest ? await context.models.ConversationMember.update({ last_read_at: latest.created_at }, {
            where: { conversation_id: conversation.id, user_id: actor.userId, last_read_at: { [Op.or]: [null, { [Op.lt]: latest.created_at }] } },
            transaction
        }) : [0];
        if (moved) {
            await log.record({ conversation_id: conversation.id, user_id: actor.userId, kind: 'conversation', action: 'updated', record_id: conversation.id, revision: conversation.revision });
        }
    });
}
