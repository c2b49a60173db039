import Sqlite3 from 'sqlite3';

/*
 * Promises over one sqlite3 connection. The connection is shared by every caller of the process, so its work runs one
 * job at a time: a transaction's statements never interleave with another caller's.
 */

export type SqlValue = string | number | Buffer | null;

export interface SqlConnection {
    run(sql: string, params?: SqlValue[]): Promise<{ lastID: number; changes: number }>;
    get<T>(sql: string, params?: SqlValue[]): Promise<T | undefined>;
    all<T>(sql: string, params?: SqlValue[]): Promise<T[]>;
    exec(sql: string): Promise<void>;
}

export class SqliteDatabase {

    private queue: Promise<unknown> = Promise.resolve();

    private constructor(private readonly db: Sqlite3.Database, private readonly connection: SqlConnection) { }

    static async open(path: string, busyTimeoutMs: number): Promise<SqliteDatabase> {

        const db = await new Promise<Sqlite3.Database>((resolve, reject) => {

            const opened: Sqlite3.Database = new Sqlite3.Database(path, Sqlite3.OPEN_READWRITE | Sqlite3.OPEN_CREATE, (error) => (error ? reject(error) : resolve(opened)));
        });

        db.configure('busyTimeout', busyTimeoutMs);
        return new SqliteDatabase(db, connectionOf(db));
    }

    /** Runs the job alone on the connection (reads, or a single statement). */
    exclusive<T>(job: (connection: SqlConnection) => Promise<T>): Promise<T> {

        const result = this.queue.then(() => job(this.connection));
        this.queue = result.catch(() => undefined);
        return result;
    }

    /** A write transaction: BEGIN IMMEDIATE takes the write lock first (waiting up to the busy timeout for another process). */
    transaction<T>(job: (connection: SqlConnection) => Promise<T>): Promise<T> {

        return this.exclusive(async (connection) => {

            await connection.exec('BEGIN IMMEDIATE');
            try {
                const result = await job(connection);
                await connection.exec('COMMIT');
                return result;
            }
            catch (error) {
                await connection.exec('ROLLBACK').catch(() => undefined);
                throw error;
            }
        });
    }

    close(): Promise<void> {

        return this.exclusive(() => new Promise<void>((resolve, reject) => this.db.close((error) => (error ? reject(error) : resolve()))));
    }
}


function connectionOf(db: Sqlite3.Database): SqlConnection {

    return {
        run: (sql, params = []) => new Promise((resolve, reject) => {

            db.run(sql, params, function (this: Sqlite3.RunResult, error: Error | null) {

                return error ? reject(error) : resolve({ lastID: this.lastID, changes: this.changes });
            });
        }),
        get: <T>(sql: string, params: SqlValue[] = []) => new Promise<T | undefined>((resolve, reject) => {

            db.get(sql, params, (error: Error | null, row: T | undefined) => (error ? reject(error) : resolve(row)));
        }),
        all: <T>(sql: string, params: SqlValue[] = []) => new Promise<T[]>((resolve, reject) => {

            db.all(sql, params, (error: Error | null, rows: T[]) => (error ? reject(error) : resolve(rows)));
        }),
        exec: (sql) => new Promise<void>((resolve, reject) => {

            db.exec(sql, (error: Error | null) => (error ? reject(error) : resolve()));
        })
    };
}
