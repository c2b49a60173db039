import Fs from 'fs';
import Path from 'path';

import type { Request, ServerRoute } from '@hapi/hapi';

import type { DesktopClient } from '../engine/desktop-client';
import { safeFileName } from '../file-name';
import type { Conversation } from '../sdk/types';
import { answering, PageRequestError } from './answers';

/** Larger than any plan's largest attachment, times a few: the service says which file is too large. */
const maxPayloadBytes = 128 * 1024 * 1024;

export const sendPath = '/api/conversations/{id}/messages';

/** A file of the multipart form, as hapi wrote it to the uploads directory. */
interface FormFile {
    filename: string;
    path: string;
    bytes: number;
}

/**
 * POST /api/conversations/{id}/messages: a text and files, as JSON `{ body }` or a multipart form (`body`, `files`).
 * hapi writes the files into `uploadsDir` (private to this user); each is renamed to its own name in a directory of
 * its own, which is what the outbox keeps as the file's name, and removed once the outbox holds it.
 */
export function sendRoute(client: DesktopClient, uploadsDir: string, conversationOf: (request: Request) => Promise<Conversation>): ServerRoute {

    return {
        method: 'POST',
        path: sendPath,
        options: {
            payload: { multipart: { output: 'file' }, uploads: uploadsDir, maxBytes: maxPayloadBytes, allow: ['application/json', 'multipart/form-data'] }
        },
        handler: answering(async (request, h) => {

            const payload = (request.payload ?? {}) as { body?: unknown; files?: FormFile | FormFile[] };
            const given = [payload.files ?? []].flat();
            const chosen = given.filter((file) => file.filename);
            const named: string[] = [];
            try {
                const conversation = await conversationOf(request);
                const body = typeof payload.body === 'string' && payload.body.trim() !== '' ? payload.body : undefined;
                if (!body && chosen.length === 0) {
                    throw new PageRequestError(400, 'invalid_request', 'Write a message or choose a file.');
                }

                for (const file of chosen) {
                    const dir = await Fs.promises.mkdtemp(Path.join(uploadsDir, 'file-'));
                    const path = Path.join(dir, safeFileName(file.filename));
                    await Fs.promises.rename(file.path, path);
                    named.push(path);
                }

                const item = await client.send(conversation.id, { body, files: named });
                return h.response({ data: item }).code(202);
            }
            finally {
                const leftovers = [...given.map((file) => file.path), ...named.map((path) => Path.dirname(path))];
                await Promise.all(leftovers.map((path) => Fs.promises.rm(path, { recursive: true, force: true })));
            }
        })
    };
}
