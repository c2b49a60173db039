import type { OutboxItem } from '../../profile/local-store';
import { command } from '../command';
import { byteSize, outboxItemJson, shortTime } from '../format';
import { conversationName, People } from '../names';
import { withClient } from '../open-client';

/** What an outbox item holds, in a few words. */
function contents(item: OutboxItem): string {

    const files = item.files.map((file) => `[${file.name}, ${byteSize(file.size)}${file.uploadId ? ', uploaded' : ''}]`);
    return [item.body === undefined ? '' : JSON.stringify(item.body), ...files].filter(Boolean).join(' ');
}

export const outboxCommand = command({
    usage: 'outbox',
    summary: 'the messages written here and not sent yet',
    description: [
        'Lists what waits in the outbox on this computer, in the order it was written, with the error that',
        'stopped it if the service refused it. It asks nothing of the service: `sync` sends it.'
    ].join('\n'),
    options: {},
    async run({ values, output }) {

        await withClient(values.profile, async (client) => {

            const items = await client.store.outboxItems();
            const people = await People.of(client, { ask: false });
            const names = new Map<string, string>();
            for (const item of items) {
                const conversation = await client.store.conversation(item.conversationId);
                names.set(item.conversationId, conversation ? conversationName(conversation, people, client.profile.userId) : item.conversationId);
            }

            output.result({ items: items.map(outboxItemJson) }, () => (items.length === 0
                ? ['The outbox is empty.']
                : items.map((item) => [
                    `#${item.seq}  to ${names.get(item.conversationId)}  ${shortTime(item.clientTime)}  ${item.state}  ${contents(item)}`,
                    ...(item.lastError ? [`    not sent: ${item.lastError.message} (${item.lastError.code})`] : [])
                ].join('\n'))));
        });
    }
});
