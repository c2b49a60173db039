import type { OutboxItem } from '../profile/local-store';
import type { Conflict, Message } from '../sdk/types';
import type { People } from './names';

/** `1.2 MB`, for a person. */
export function byteSize(bytes: number): string {

    const units = ['B', 'kB', 'MB', 'GB'];
    let size = bytes;
    let unit = 0;
    while (size >= 1000 && unit < units.length - 1) {
        size /= 1000;
        ++unit;
    }

    return unit === 0 ? `${bytes} B` : `${size.toFixed(1)} ${units[unit]}`;
}

/** `2026-12-06 19:20`: a time of the service (UTC) as the local time of this computer, to the minute. */
export function shortTime(iso: string): string {

    const time = new Date(iso);
    const two = (value: number) => String(value).padStart(2, '0');
    return `${time.getFullYear()}-${two(time.getMonth() + 1)}-${two(time.getDate())} ${two(time.getHours())}:${two(time.getMinutes())}`;
}

/**
 * Who wrote a message and what: `ann@example.com: Dinner at 8? [menu.pdf, 12.0 kB] (msg_…)` (its body's own lines
 * indented; the id, which `save` takes, only for a message with files).
 */
export function messageText(message: Message, people: People): string {

    const files = message.attachments.map((file) => `[${file.file_name}, ${byteSize(file.size_bytes)}]`);
    const savedBy = files.length > 0 ? `(${message.id})` : '';
    const body = message.deleted ? '(deleted)' : [message.body ?? '', ...files, savedBy].filter(Boolean).join(' ');
    const edited = message.edited_at && !message.deleted ? ' (edited)' : '';
    return `${people.email(message.sender_id)}: ${body.replace(/\n/g, '\n    ')}${edited}`;
}

/** One message as the history shows it: when, who, what. */
export function messageLine(message: Message, people: People): string {

    return `${shortTime(message.created_at)}  ${messageText(message, people)}`;
}

/** An outbox item as `--json` shows it. */
export function outboxItemJson(item: OutboxItem) {

    return {
        seq: item.seq,
        conversation_id: item.conversationId,
        idempotency_key: item.idempotencyKey,
        client_time: item.clientTime,
        body: item.body ?? null,
        files: item.files.map((file) => ({ name: file.name, size_bytes: file.size, uploaded: file.uploadId !== undefined })),
        state: item.state,
        attempts: item.attempts,
        last_error: item.lastError ?? null
    };
}

/** `1 change`, `2 changes`. */
export function counted(count: number, noun: string): string {

    return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** The command that resolves a conflict, with the actions it allows. */
export function resolveHint(conflict: Conflict): string {

    return `family-records-desktop resolve ${conflict.id} ${conflict.actions.map((action) => (action === 'edit' ? '--edit TEXT' : `--${action}`)).join(' | ')}`;
}
