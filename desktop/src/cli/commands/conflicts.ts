import type { Conflict } from '../../sdk/types';
import { command } from '../command';
import { resolveHint, shortTime } from '../format';
import { conversationName, People } from '../names';
import { refreshed, withClient } from '../open-client';

/** A conflict's lines for a person: what was refused, why, and how to resolve it. */
function conflictLines(conflict: Conflict, where: string): string[] {

    const files = conflict.item.upload_ids?.length ? ` + ${conflict.item.upload_ids.length} file(s)` : '';
    const lines = [
        `${conflict.id}  to ${where}  ${shortTime(conflict.created_at)}  ${conflict.status === 'open' ? conflict.reason : `resolved: ${conflict.resolution}`}`,
        `    ${JSON.stringify(conflict.item.body ?? '')}${files}`,
        `    ${conflict.message}`
    ];
    if (conflict.status === 'open') {
        lines.push(`    resolve: ${resolveHint(conflict)}`);
    }

    return lines;
}

export const conflictsCommand = command({
    usage: 'conflicts [--all]',
    summary: 'messages the service refused, to retry, edit or discard',
    description: [
        'Lists the messages of the outbox the service refused when they were sent (the person blocked you, the',
        'family\'s storage is full, …) with what can be done about each: `resolve`. --all shows the resolved ones too.'
    ].join('\n'),
    options: {
        all: { type: 'boolean' }
    },
    async run({ values, output }) {

        await withClient(values.profile, async (client) => {

            const online = await refreshed(client, output);
            const people = await People.of(client, { ask: online });
            const conflicts = await client.store.conflicts({ status: values.all ? 'all' : 'open' });
            const lines: string[] = [];
            for (const conflict of conflicts) {
                const conversation = conflict.conversation_id ? await client.store.conversation(conflict.conversation_id) : undefined;
                lines.push(...conflictLines(conflict, conversation ? conversationName(conversation, people, client.profile.userId) : conflict.item.conversation_id));
            }

            output.result({ conflicts }, () => (conflicts.length === 0 ? [values.all ? 'No conflicts.' : 'No open conflicts.'] : lines));
        });
    }
});
