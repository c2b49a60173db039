import type { DesktopClient } from '../engine/desktop-client';
import type { Change, Conflict, Message } from '../sdk/types';
import { messageText, shortTime } from './format';
import { conversationName, type People } from './names';

/** The words of a member's change. */
const memberActions: Readonly<Record<Change['action'], string>> = { created: 'joined', updated: 'changed', deleted: 'left' };

/** What a change says, after the conversation's name. */
function whatChanged(change: Change, people: People): string {

    const { kind, action, record } = change;
    if (kind === 'message' && record) {
        return messageText(record as Message, people) + (action === 'created' ? '' : ` [${action}]`);
    }

    if (kind === 'member') {
        return `${people.email(change.record_id)} ${memberActions[action]}`;
    }

    if (kind === 'conflict' && record) {
        const conflict = record as Conflict;
        return `conflict ${conflict.id} ${conflict.status}: ${conflict.message}`;
    }

    if (kind === 'block') {
        return `${action === 'deleted' ? 'unblocked' : 'blocked'} ${people.email(change.record_id)}`;
    }

    return `${kind} ${action}`;
}

/** One change as `watch` shows it: when, which conversation, what. */
export async function changeLine(client: DesktopClient, change: Change, people: People): Promise<string> {

    const conversation = change.conversation_id ? await client.store.conversation(change.conversation_id) : undefined;
    const where = conversation ? conversationName(conversation, people, client.profile.userId) : change.conversation_id;
    return `${shortTime(change.occurred_at)}  ${where ? `[${where}] ` : ''}${whatChanged(change, people)}`;
}
