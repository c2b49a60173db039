import type { Conflict, Conversation, Message } from '../sdk/types';

import { SealedRecords } from './sealed-records';
import { SqlConnection, SqliteDatabase } from './sqlite-database';

/* What the client knows of the service's records: conversations, messages, conflicts, and its own named state values. */

interface SealedRow {
    id: string;
    sealed: Buffer;
}

type CachedTable = 'conversations' | 'messages' | 'conflicts';

interface CachedRecord {
    id: string;
    revision: number;
}

/** The columns kept in clear beside a sealed record: what it is looked up and ordered by. */
const messageColumns = (message: Message) => ({ conversation_id: message.conversation_id, created_at: message.created_at });
const conflictColumns = (conflict: Conflict) => ({ status: conflict.status, created_at: conflict.created_at });

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

    /** Upserts by id; a conversation already known at a higher revision is kept. */
    putConversations(list: Conversation[]): Promise<void> {

        return this.putAll('conversations', list, () => ({}));
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
    putMessages(list: Message[]): Promise<void> {

        return this.putAll('messages', list, messageColumns);
    }

    putMessage(connection: SqlConnection, message: Message): Promise<void> {

        return this.upsert(connection, 'messages', message, messageColumns(message));
    }

    /** The latest `limit` messages of the conversation, oldest first. */
    async messages(conversationId: string, options: { limit?: number } = {}): Promise<Message[]> {

        const rows = await this.db.exclusive((connection) => connection.all<SealedRow>(
            'SELECT id, sealed FROM messages WHERE conversation_id = ? ORDER BY created_at DESC, id DESC LIMIT ?', [conversationId, options.limit ?? -1]));

        return rows.reverse().map((row) => this.records.open<Message>('messages', row.id, row.sealed));
    }

    /** Upserts by id; a conflict already known at a higher revision is kept. */
    putConflicts(list: Conflict[]): Promise<void> {

        return this.putAll('conflicts', list, conflictColumns);
    }

    putConflict(connection: SqlConnection, conflict: Conflict): Promise<void> {

        return this.upsert(connection, 'conflicts', conflict, conflictColumns(conflict));
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

    /** Upserts each record (see upsert()) in one transaction. */
    private async putAll<T extends CachedRecord>(table: CachedTable, list: T[], clearColumns: (record: T) => Record<string, string>): Promise<void> {

        await this.db.transaction(async (connection) => {

            for (const record of list) {
                await this.upsert(connection, table, record, clearColumns(record));
            }
        });
    }

    /** Inserts or replaces the record, sealed, with its `clear` columns beside it; one already stored at a higher revision is kept. */
    private async upsert(connection: SqlConnection, table: CachedTable, record: CachedRecord, clear: Record<string, string>): Promise<void> {

        if (!await this.isNewer(connection, table, record)) {
            return;
        }

        const columns = ['id', ...Object.keys(clear), 'sealed'];
        const updates = columns.slice(1).map((name) => `${name} = excluded.${name}`).join(', ');
        await connection.run(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')}) ON CONFLICT (id) DO UPDATE SET ${updates}`,
            [record.id, ...Object.values(clear), this.records.seal(table, record.id, record)]);
    }

    /** Whether the record is not older than the stored one (the revision lives in the sealed record, not in a column). */
    private async isNewer(connection: SqlConnection, table: CachedTable, record: CachedRecord): Promise<boolean> {

        const row = await connection.get<SealedRow>(`SELECT id, sealed FROM ${table} WHERE id = ?`, [record.id]);
        return !row || this.records.open<{ revision: number }>(table, record.id, row.sealed).revision <= record.revision;
    }
}


function lastActive(conversation: Conversation): string {

    return conversation.last_message_at ?? conversation.created_at;
}
