import type { DesktopClient } from '../../engine/desktop-client';
import type { OutboxItem } from '../../profile/local-store';
import { command } from '../command';
import { CliError } from '../errors';
import { byteSize, outboxItemJson, shortTime } from '../format';
import { conversationName, People } from '../names';
import { withClient } from '../open-client';
import type { Output } from '../output';

/** What an outbox item holds, in a few words. */
function contents(item: OutboxItem): string {

    const files = item.files.map((file) => `[${file.name}, ${byteSize(file.size)}${file.uploadId ? ', uploaded' : ''}]`);
    return [item.body === undefined ? '' : JSON.stringify(item.body), ...files].filter(Boolean).join(' ');
}

/** Gives up the item numbered `seq` (as `outbox` lists it): its text and files go, nothing is sent. */
async function discard(client: DesktopClient, seq: string, output: Output): Promise<void> {

    const item = (await client.store.outboxItems()).find((candidate) => String(candidate.seq) === seq.replace(/^#/, ''));
    if (!item) {
        throw new CliError(`no item #${seq.replace(/^#/, '')} in the outbox (\`outbox\` lists them)`, 'not_found');
    }

    await client.discardOutboxItem(item.seq);
    output.result({ discarded: outboxItemJson(item) }, () => [`✓ Discarded #${item.seq}: nothing of it was sent`]);
}

export const outboxCommand = command({
    usage: 'outbox [--discard N]',
    summary: 'the messages written here and not sent yet',
    description: [
        'Lists what waits in the outbox on this computer, in the order it was written, with the error that',
        'stopped it if the service refused it. It asks nothing of the service: `sync` sends it. --discard N',
        'gives up item #N (one the service refused stops its conversation\'s queue until then).'
    ].join('\n'),
    options: {
        discard: { type: 'string' }
    },
    async run({ values, output }) {

        await withClient(values.profile, async (client) => {

            if (values.discard !== undefined) {
                return await discard(client, values.discard, output);
            }

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
