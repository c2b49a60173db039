import Fs from 'fs';

import type { DesktopClient } from '../../engine/desktop-client';
import type { FlushResult } from '../../engine/outbox-flush';
import type { OutboxItem } from '../../profile/local-store';
import { command } from '../command';
import { CliError, exitCodes } from '../errors';
import { outboxItemJson, resolveHint } from '../format';
import { conversationName, findConversation } from '../names';
import { withClient } from '../open-client';
import type { Output } from '../output';
import { showUploadProgress } from '../progress';

/** Refuses a file that cannot be read before anything is queued. */
async function checkReadable(paths: string[]): Promise<void> {

    for (const path of paths) {
        try {
            const stat = await Fs.promises.stat(path);
            if (!stat.isFile()) {
                throw new CliError(`--file ${path} is not a file`, 'invalid_file');
            }

            await Fs.promises.access(path, Fs.constants.R_OK);
        }
        catch (error) {
            const failure = error as NodeJS.ErrnoException;
            throw error instanceof CliError ? error : new CliError(`cannot read --file ${path} (${failure.code ?? failure.message})`, 'invalid_file');
        }
    }
}

/** What became of an item after the flush: its message, its conflict, or still in the outbox. Resolves the exit code. */
async function reportOutcome(client: DesktopClient, item: OutboxItem, flushed: FlushResult, to: string, output: Output): Promise<number> {

    const waiting = (await client.store.outboxItems(item.conversationId)).find((queued) => queued.seq === item.seq);
    if (waiting) {
        if (waiting.lastError) {
            output.result({ status: 'queued', item: outboxItemJson(waiting) }, () => [
                `not sent: ${waiting.lastError!.message} (${waiting.lastError!.code}); it stays in the outbox (family-records-desktop outbox)`
            ]);
            return exitCodes.error;
        }

        if (flushed.elsewhere) {
            output.result({ status: 'queued', item: outboxItemJson(waiting) }, () => ['queued: another family-records-desktop process of this profile (the window, or watch) is sending the outbox; this message goes with its next round, or with the next `sync`']);
            return exitCodes.ok;
        }

        output.result({ status: 'queued', item: outboxItemJson(waiting) }, () => ['queued: offline, will send when connected']);
        return exitCodes.offline;
    }

    const conflict = (await client.store.conflicts({ status: 'all' })).find((candidate) => candidate.item.idempotency_key === item.idempotencyKey);
    if (conflict) {
        output.result({ status: 'conflict', conflict }, () => [
            `✗ not sent: ${conflict.message} (conflict ${conflict.id}: ${resolveHint(conflict)})`
        ]);
        return exitCodes.error;
    }

    const message = (await client.store.messages(item.conversationId, { limit: 100 }))
        .find((candidate) => candidate.client_time === item.clientTime && candidate.sender_id === client.profile.userId);
    output.result({ status: 'sent', message: message ?? null }, () => [`✓ Sent to ${to}${message ? ` (${message.id})` : ''}`]);
    return exitCodes.ok;
}

export const sendCommand = command({
    usage: 'send <conversation> <text> [--file PATH]… [--progress]',
    summary: 'send a message, with files',
    description: [
        'Writes the message into the outbox on this computer first (with its files, encrypted), then sends it.',
        'Offline it stays there, and goes out with the next command that reaches the service (sync, watch, the',
        'window): exit code 3. The text may be "" when files are given. Uploads show their progress on stderr',
        'when it is a terminal, or always with --progress.'
    ].join('\n'),
    options: {
        file: { type: 'string', multiple: true },
        progress: { type: 'boolean' }
    },
    positionals: ['<conversation>', '<text>'],
    async run({ values, positionals: [name, text], output }) {

        const files = values.file ?? [];
        if (text.trim() === '' && files.length === 0) {
            throw new CliError('nothing to send: give a text or a --file', 'empty_message', exitCodes.usage);
        }

        await checkReadable(files);
        return withClient(values.profile, async (client) => {

            const { conversation, people } = await findConversation(client, name);
            const stopProgress = values.progress || process.stderr.isTTY ? showUploadProgress(client) : () => undefined;
            let item: OutboxItem;
            let flushed: FlushResult;
            try {
                item = await client.send(conversation.id, { body: text.trim() === '' ? undefined : text, files });
                flushed = await client.flush();
            }
            finally {
                stopProgress();
            }

            return reportOutcome(client, item, flushed, conversationName(conversation, people, client.profile.userId), output);
        });
    }
});
