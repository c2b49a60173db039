import { OfflineError } from '../../sdk/errors';
import { command, positiveInteger } from '../command';
import { messageLine } from '../format';
import { conversationName, findConversation } from '../names';
import { withClient } from '../open-client';

const usage = 'history <conversation> [--limit N]';

export const historyCommand = command({
    usage,
    summary: 'the latest messages of a conversation',
    description: [
        'Shows the latest messages of a conversation (20 unless --limit), oldest first. It asks the service;',
        'offline it shows those kept on this computer.'
    ].join('\n'),
    options: {
        limit: { type: 'string' }
    },
    positionals: ['<conversation>'],
    async run({ values, positionals: [name], output }) {

        const limit = positiveInteger(values.limit, 'limit', usage) ?? 20;
        await withClient(values.profile, async (client) => {

            const { conversation, people } = await findConversation(client, name);
            try {
                const page = await client.api.history(conversation.id, { limit });
                await client.store.putMessages(page.data);
            }
            catch (error) {
                if (!(error instanceof OfflineError)) {
                    throw error;
                }

                output.note(`offline: ${error.message} Showing the messages this computer kept.`);
            }

            const messages = await client.store.messages(conversation.id, { limit });
            output.result({ conversation: { id: conversation.id, name: conversationName(conversation, people, client.profile.userId) }, messages }, () => (messages.length === 0
                ? [`No messages in ${conversationName(conversation, people, client.profile.userId)} yet.`]
                : messages.map((message) => messageLine(message, people))));
        });
    }
});
