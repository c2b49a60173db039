import type { Conflict, Conversation, Message } from '../sdk/types';

import { SealedRecords } from './sealed-records';
import { SqlConnection, SqliteDatabase } from './sqlite-database';

/* What the client knows of the service's records: conversations, messages, conflicts, and its own named state values. */

interface SealedRow {
    id: string;
    sealed: Buffer;
}

export class CacheTables {

    constructor(private readonly db: SqliteDatabase, private readonly records: SealedRecords) { }

    async getState<T>(name: string): Promise<T | undefined> {

        const row = await this.db.exclusive((connection) => connection.get<SealedRow>('SELECT name AS id, sealed FROM state WHERE name = ?', [name]));
        return row ? this.records.open<{ value: T }>('state', name, row.sealed).value : undefined;
    }

    async setState(name: string, value: unknown): Promise<void> {

        const sealed = this.records.seal('state', name, { value });
        await this.db.transaction((connection) => connection.run('INSERT INTO state (name, sealed) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET sealed = excluded.sealed', [name, sealed]));
    }

    async deleteState(name: string): Promise<void> {

        await this.db.transaction((connection) => connection.run('DELETE FROM state WHERE name = ?', [name]));
    }

    async putConversations(list: Conversation[]): Promise<void> {

        await this.db.transaction(async (connection) => {

            for (const conversation of list) {
                if (await this.isNewer(connection, 'conversations', conversation)) {
                    await connection.run('INSERT INTO conversations (id, sealed) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET sealed = excluded.sealed',
                        [conversation.id, this.records.seal('conversations', conversation.id, conversation)]);
                }
            }
        });
    }

    async removeConversation(id: string): Promise<void> {

        await this.db.transaction(async (connection) => {

            await connection.run('DELETE FROM messages WHERE conversation_id = ?', [id]);
            await connection.run('DELETE FROM conversations WHERE id = ?', [id]);
        });
    }

    /** Most recently active first. */
    async conversations(): Promise<Conversation[]> {

        const rows = await this.db.exclusive((connection) => connection.all<SealedRow>('SELECT id, sealed FROM conversations'));
        const list = rows.map((row) => this.records.open<Conversation>('conversations', row.id, row.sealed));
        return list.sort((a, b) => lastActive(b).localeCompare(lastActive(a)) || a.id.localeCompare(b.id));
    }

    async conversation(id: string): Promise<Conversation | undefined> {

        const row = await this.db.exclusive((connection) => connection.get<SealedRow>('SELECT id, sealed FROM conversations WHERE id = ?', [id]));
        return row ? this.records.open<Conversation>('conversations', id, row.sealed) : undefined;
    }

    /** Upserts by id; a message already known at a higher revision is kept. */
    async putMessages(list: Message[]): Promise<void> {

        await this.db.transaction(async (connection) => {

            for (const message of list) {
                await this.putMessage(connection, message);
            }
        });
    }

    async putMessage(connection: SqlConnection, message: Message): Promise<void> {

        if (await this.isNewer(connection, 'messages', message)) {
            await connection.run(`INSERT INTO messages (id, conversation_id, created_at, sealed) VALUES (?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET conversation_id = excluded.conversation_id, created_at = excluded.created_at, sealed = excluded.sealed`,
            [message.id, message.conversation_id, message.created_at, this.records.seal('messages', message.id, message)]);
        }
    }

    /** The latest `limit` messages of the conversation, oldest first. */
    async messages(conversationId: string, options: { limit?: number } = {}): Promise<Message[]> {

        const rows = await this.db.exclusive((connection) => connection.all<SealedRow>(
            'SELECT id, sealed FROM messages WHERE conversation_id = ? ORDER BY created_at DESC, id DESC LIMIT ?', [conversationId, options.limit ?? -1]));

        return rows.reverse().map((row) => this.records.open<Message>('messages', row.id, row.sealed));
    }

    /** Upserts by id; a conflict already known at a higher revision is kept. */
    async putConflicts(list: Conflict[]): Promise<void> {

        await this.db.transaction(async (connection) => {

            for (const conflict of list) {
                await this.putConflict(connection, conflict);
            }
        });
    }

    async putConflict(connection: SqlConnection, conflict: Conflict): Promise<void> {

        if (await this.isNewer(connection, 'conflicts', conflict)) {
            await connection.run(`INSERT INTO conflicts (id, status, created_at, sealed) VALUES (?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET status = excluded.status, created_at = excluded.created_at, sealed = excluded.sealed`,
            [conflict.id, conflict.status, conflict.created_at, this.records.seal('conflicts', conflict.id, conflict)]);
        }
    }

    /** The open conflicts (or all of them), in the order their items were refused. */
    async conflicts(options: { status?: 'open' | 'all' } = {}): Promise<Conflict[]> {

        const where = (options.status ?? 'open') === 'open' ? "WHERE status = 'open'" : '';
        const rows = await this.db.exclusive((connection) => connection.all<SealedRow>(`SELECT id, sealed FROM conflicts ${where} ORDER BY created_at, id`));
        return rows.map((row) => this.records.open<Conflict>('conflicts', row.id, row.sealed));
    }

    async conflict(id: string): Promise<Conflict | undefined> {

        const row = await this.db.exclusive((connection) => connection.get<SealedRow>('SELECT id, sealed FROM conflicts WHERE id = ?', [id]));
        return row ? this.records.open<Conflict>('conflicts', id, row.sealed) : undefined;
    }

    /** Whether the record is not older than the stored one (the revision lives in the sealed record, not in a column). */
    private async isNewer(connection: SqlConnection, table: 'conversations' | 'messages' | 'conflicts', record: { id: string; revision: number }): Promise<boolean> {

        const row = await connection.get<SealedRow>(`SELECT id, sealed FROM ${table} WHERE id = ?`, [record.id]);
        return !row || this.records.open<{ revision: number }>(table, record.id, row.sealed).revision <= record.revision;
    }
}


function lastActive(conversation: Conversation): string {

    return conversation.last_message_at ?? conversation.created_at;
}
