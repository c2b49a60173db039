import type { MessagingActor } from '../../../lib/messaging/context';
import type { Models } from '../../../models';
import type { ConflictReason } from '../../../models/messaging-conflict';

/** What each reason code means, for the person whose offline message it held back. */
const reasons: Record<ConflictReason, string> = {
    account_disabled: 'Your account was disabled, or your family\'s messaging suspended, when your device sent it.',
    storage_quota: 'Its files did not fit in your family\'s storage quota.',
    conversation_access: 'You were no longer in the conversation (or it was gone) when it arrived.',
    blocked: 'A block stood between you and the person you wrote to.',
    attachment_policy: 'One of its files is of a type or size your family\'s plan does not accept.'
};

export interface OpenConflict {
    id: string;
    reason: ConflictReason;
    explanation: string;
    /** The service's own words on this item now (a recheck may have changed them). */
    message: string;
    /** What the retry and discard forms send: a conflict changed since the page was drawn is not resolved blind. */
    revision: number;
    /** The text the device sent, when it sent text. */
    text: string | null;
    conversationId: string | null;
    createdAt: Date;
}

/** The user's open conflicts (messages their devices sent offline that the service held back), the newest first. */
export async function openConflicts(models: Models, actor: MessagingActor): Promise<OpenConflict[]> {

    const conflicts = await models.MessagingConflict.findAll({
        where: { user_id: actor.userId, family_long_id: actor.familyLongId, status: 'open' },
        order: [['created_at', 'DESC'], ['id', 'DESC']]
    });
    return conflicts.map((conflict) => ({
        id: conflict.id,
        reason: conflict.reason,
        explanation: reasons[conflict.reason] ?? conflict.message,
        message: conflict.message,
        revision: conflict.revision,
        text: typeof conflict.item.body === 'string' ? conflict.item.body : null,
        conversationId: conflict.conversation_id,
        createdAt: conflict.created_at
    }));
}
