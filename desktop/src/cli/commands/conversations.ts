import { command } from '../command';
import { conversationName, People } from '../names';
import { refreshed, withClient } from '../open-client';

export const conversationsCommand = command({
    usage: 'conversations',
    summary: 'your conversations, the most recently active first',
    description: [
        'Lists your conversations, the most recently active first, with their unread messages. It syncs',
        'first; offline it shows those kept on this computer. A command that takes <conversation> takes its',
        'id, or the beginning of its name (a group\'s title, the other person\'s email) shown here.'
    ].join('\n'),
    options: {},
    async run({ values, output }) {

        await withClient(values.profile, async (client) => {

            const online = await refreshed(client, output);
            const people = await People.of(client, { ask: online });
            const conversations = await client.store.conversations();
            const me = client.profile.userId;
            const named = conversations.map((conversation) => ({ ...conversation, name: conversationName(conversation, people, me) }));
            output.result({ conversations: named }, () => (named.length === 0
                ? ['No conversations yet.']
                : named.map((conversation) => {

                    const unread = conversation.unread_count > 0 ? `  ${conversation.unread_count} unread` : '';
                    return `${conversation.id}  ${conversation.name}${conversation.kind === 'group' ? ` (group of ${conversation.member_ids.length})` : ''}${unread}`;
                })));
        });
    }
});
