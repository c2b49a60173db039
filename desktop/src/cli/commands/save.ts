import Fs from 'fs';
import Path from 'path';

import { OfflineError } from '../../sdk/errors';
import { command } from '../command';
import { CliError, exitCodes } from '../errors';
import { byteSize } from '../format';
import { withClient } from '../open-client';
import { saveWithoutOverwriting } from '../save-file';

/** The directory to save into, which must be there. */
async function directoryOf(dir: string): Promise<string> {

    const path = Path.resolve(dir);
    const stat = await Fs.promises.stat(path).catch(() => undefined);
    if (!stat?.isDirectory()) {
        throw new CliError(`--dir ${dir} is not a directory`, 'invalid_dir');
    }

    return path;
}

export const saveCommand = command({
    usage: 'save <message> [--dir DIR]',
    summary: 'save the files of a message',
    description: [
        'Downloads the files of a message into DIR (the current directory unless --dir), each under its own',
        'name; a name already taken there becomes "name (1).ext", "name (2).ext"…, so nothing is overwritten.',
        '`history` shows each message\'s files and its id (msg_…). It needs the service: offline nothing is',
        'saved (exit code 3).'
    ].join('\n'),
    options: {
        dir: { type: 'string' }
    },
    positionals: ['<message>'],
    async run({ values, positionals: [messageId], output }) {

        const dir = await directoryOf(values.dir ?? '.');
        await withClient(values.profile, async (client) => {

            const saved: Array<{ upload_id: string; file_name: string; size_bytes: number; path: string }> = [];
            try {
                const message = await client.api.message(messageId);
                if (message.attachments.length === 0) {
                    throw new CliError(`message ${message.id} has no files`, 'no_files');
                }

                for (const attachment of message.attachments) {
                    const file = await client.api.downloadAttachment(message.id, attachment.upload_id);
                    const path = await saveWithoutOverwriting(dir, attachment.file_name, file.body);
                    saved.push({ upload_id: attachment.upload_id, file_name: attachment.file_name, size_bytes: file.body.length, path });
                }
            }
            catch (error) {
                if (error instanceof OfflineError) {
                    const done = saved.length > 0 ? ` ${saved.length} file(s) were saved before: ${saved.map((file) => file.path).join(', ')}.` : ' Nothing was saved.';
                    throw new CliError(`offline: ${error.message}${done}`, 'offline', exitCodes.offline);
                }

                throw error;
            }

            output.result({ files: saved }, () => saved.map((file) => `✓ Saved ${file.file_name} (${byteSize(file.size_bytes)}) as ${file.path}`));
        });
    }
});
