import type { ConflictAction } from '../../engine/conflicts';
import { command } from '../command';
import { exitCodes, UsageError } from '../errors';
import { withClient } from '../open-client';

const usage = 'resolve <conflict> --retry | --discard | --edit TEXT';

/** What became of a conflict, in words. */
const resolutions: Readonly<Record<string, string>> = {
    retried: 'sent as it was',
    edited: 'sent with the new text',
    discarded: 'discarded: it will not be sent'
};

export const resolveCommand = command({
    usage,
    summary: 'retry, edit or discard a message the service refused',
    description: [
        'Resolves a conflict that `conflicts` lists: --retry sends the message again as it was (once its cause is',
        'gone), --edit TEXT sends it with another text, --discard drops it. A retry refused again keeps the',
        'conflict open with the new reason (exit 1).'
    ].join('\n'),
    options: {
        retry: { type: 'boolean' },
        discard: { type: 'boolean' },
        edit: { type: 'string' }
    },
    positionals: ['<conflict>'],
    async run({ values, positionals: [conflictId], output }) {

        const chosen: ConflictAction[] = [
            ...(values.retry ? ['retry' as const] : []),
            ...(values.discard ? ['discard' as const] : []),
            ...(values.edit !== undefined ? [{ edit: values.edit }] : [])
        ];
        if (chosen.length !== 1) {
            throw new UsageError(chosen.length === 0 ? 'say what to do: --retry, --discard or --edit TEXT' : 'choose one of --retry, --discard and --edit', usage);
        }

        return withClient(values.profile, async (client) => {

            const conflict = await client.resolve(conflictId, chosen[0]);
            output.result({ conflict }, () => [conflict.status === 'resolved'
                ? `✓ ${conflict.id}: ${resolutions[conflict.resolution ?? ''] ?? conflict.resolution}`
                : `✗ ${conflict.id} is still refused: ${conflict.message} (${conflict.reason})`]);
            return conflict.status === 'resolved' ? exitCodes.ok : exitCodes.error;
        });
    }
});
