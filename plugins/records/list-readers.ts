import Crypto from 'crypto';

import type { Client } from 'pg';
import type { Sequelize } from 'sequelize';
import type { Database, Statement as PreparedStatement } from 'sqlite3';

import { databaseUnavailable } from '../../lib/database-unavailable';
import type { Statement } from './list-sql';

/** What a list statement answers (list-sql.ts): one row, the page as JSON text and, from recordLinesStatement(), how many records it holds. */
export interface ListedRow {
    rows: string;
    count?: number;
}

/**
 * Runs list statements (list-sql.ts: one row of JSON text) on the database
 * driver itself. A list page is the hottest query of the API, and Sequelize's query path
 * (connection handling, hooks, result processing, and on SQLite a statement prepared and
 * finalised for every query, three round trips to the driver's thread) cost more main-thread
 * time than the rest of the request. Connections still come from Sequelize.
 */
export interface ListReader {
    /** The statement's one row. */
    read(statement: Statement): Promise<ListedRow>;
    /** Releases what the reader holds on its connections; before the database closes. */
    close(): Promise<void>;
}

/** How many distinct list statements a reader keeps prepared (a query's shape: sort, filters, search words, cursor). */
export const preparedLimit = 200;

/** SQLite: one prepared statement per SQL text on Sequelize's connection, reused with new values. */
function sqliteListReader(sequelize: Sequelize): ListReader {

    const prepared = new Map<string, Promise<PreparedStatement>>();
    const prepare = async (sql: string): Promise<PreparedStatement> => {

        const database = await sequelize.connectionManager.getConnection({ type: 'read' }) as Database;
        return new Promise((resolve, reject) => {

            const statement: PreparedStatement = database.prepare(sql, (error) => (error ? reject(error) : resolve(statement)));
        });
    };

    const finalize = async (statement: Promise<PreparedStatement>) => {

        const ready = await statement.catch(() => undefined);
        await new Promise<void>((resolve) => (ready ? ready.finalize(() => resolve()) : resolve()));
    };

    const statementFor = (sql: string): Promise<PreparedStatement> => {

        let statement = prepared.get(sql);
        if (!statement) {
            if (prepared.size >= preparedLimit) {
                const [oldest, evicted] = prepared.entries().next().value as [string, Promise<PreparedStatement>];
                prepared.delete(oldest);
                void finalize(evicted);             // queued behind the statement's pending runs by the driver
            }

            statement = prepare(sql);
            prepared.set(sql, statement);
            statement.catch(() => prepared.delete(sql));
        }

        return statement;
    };

    return {
        async read({ sql, bind }) {

            const statement = await statementFor(sql);
            // By name: SQLite numbers parameters in the order the SQL first names them, not by their digits.
            const values = Object.fromEntries(bind.map((value, index) => [`$${index + 1}`, value]));
            // all(), not get(): a statement left before its end would hold the connection's read snapshot open.
            const rows = await new Promise<ListedRow[]>((resolve, reject) => statement.all(values, (error, result: ListedRow[]) => (error ? reject(error) : resolve(result))));
            return rows[0];
        },
        async close() {

            const statements = [...prepared.values()];
            prepared.clear();
            await Promise.all(statements.map(finalize));
        }
    };
}

/**
 * How many list statements a PostgreSQL connection keeps prepared. Each holds about 100 KB of the
 * server's memory (its plan) for as long as the connection lives, and a client chooses the shapes
 * (sort, filters, search words, cursor): past this number, a text runs unprepared.
 */
export const preparedPerConnection = 50;

/**
 * PostgreSQL: a pooled connection per read, and a named (server-side prepared) statement per SQL
 * text, so the server parses and plans each shape once per connection, up to
 * `preparedPerConnection` texts a connection; any other is parsed and planned at each read. The
 * name is derived from the text: pg refuses one name for two texts on a connection.
 */
function postgresListReader(sequelize: Sequelize): ListReader {

    const names = new Map<string, string>();
    const nameOf = (sql: string) => {

        let name = names.get(sql);
        if (!name) {
            if (names.size >= preparedLimit) {
                names.clear();              // only a cache of the hashes: a name stays the same
            }

            name = `records_list_${Crypto.createHash('sha256').update(sql).digest('base64url').slice(0, 32)}`;
            names.set(sql, name);
        }

        return name;
    };

    const preparedOn = new WeakMap<Client, Set<string>>();
    const keepsPrepared = (client: Client, sql: string): boolean => {

        let prepared = preparedOn.get(client);
        if (!prepared) {
            prepared = new Set();
            preparedOn.set(client, prepared);
        }

        if (!prepared.has(sql)) {
            if (prepared.size >= preparedPerConnection) {
                return false;
            }

            prepared.add(sql);
        }

        return true;
    };

    return {
        async read({ sql, bind }) {

            const client = await sequelize.connectionManager.getConnection({ type: 'read' }) as Client;
            let lost = false;
            try {
                const query = keepsPrepared(client, sql) ? { name: nameOf(sql), text: sql, values: bind } : { text: sql, values: bind };
                const result = await client.query<ListedRow>(query);
                return result.rows[0];
            }
            catch (error) {
                lost = databaseUnavailable(error) !== undefined;
                throw error;
            }
            finally {
                // A query left unanswered (the query timeout) leaves its connection waiting for that answer: dropped, as
                // Sequelize drops its own, not pooled again for the next query to wait behind it.
                if (lost) {
                    void sequelize.connectionManager.destroyConnection(client).catch(() => undefined);
                }
                else {
                    sequelize.connectionManager.releaseConnection(client);
                }
            }
        },
        async close() {
            // Prepared statements end with their connections, which Sequelize closes.
        }
    };
}

const readers: Readonly<Record<string, (sequelize: Sequelize) => ListReader>> = { sqlite: sqliteListReader, postgres: postgresListReader };

export const listReader = (sequelize: Sequelize): ListReader => readers[sequelize.getDialect()](sequelize);
