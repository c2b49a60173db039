import Path from 'path';

import type { Client } from 'pg';
import { Sequelize, Transaction } from 'sequelize';
import Sqlite3 from 'sqlite3';
import { SequelizeStorage, Umzug } from 'umzug';

import { migrations } from '../models/migrations';
import { defaultDatabasePoolMax } from './config';
import { reuseTransactionConnections } from './sqlite-transaction-connections';

export type Dialect = 'sqlite' | 'postgres';

export interface DatabaseOptions {
    /**
     * PostgreSQL: seconds a query may go unanswered before it fails (and Sequelize, or the list reader, drops its
     * connection); unset or 0, no limit. Without one, a query sent on a connection whose server vanished without a
     * reset (a power cut, a failover, a firewall dropping the flow) waits for TCP to give up: about 15 minutes.
     */
    queryTimeoutSeconds?: number;
    /** PostgreSQL: the most connections this process holds at once; DATABASE_POOL_MAX's default when unset. */
    poolMax?: number;
}

/** Opens the database named by a `sqlite:<file>` or `postgres://` URL. */
export function openDatabase(databaseUrl: string, options: DatabaseOptions = {}): Sequelize {

    if (databaseUrl.startsWith('sqlite:')) {
        const storage = databaseUrl.slice('sqlite:'.length) || ':memory:';
        const sequelize = new Sequelize({
            dialect: 'sqlite',
            storage: storage === ':memory:' ? storage : Path.resolve(storage),
            dialectModule: sqliteWithBusyTimeout,
            // The busy timeout below already waits for another connection's lock; Sequelize would run a statement that
            // still found the file locked (SQLITE_BUSY) four more times, each waiting it again: 25 s before a request
            // was answered (503, lib/service-unavailable.ts) or a CLI command said the database is busy.
            retry: { max: 1 },
            logging: false
        });
        if (storage !== ':memory:') {
            reuseTransactionConnections(sequelize);
        }

        return sequelize;
    }

    return new Sequelize(databaseUrl, {
        dialect: 'postgres',
        logging: false,
        // How long a request may wait for the database before it is answered 503 (lib/service-unavailable.ts). A refused
        // connection fails at once; but a host that drops packets would hold a connection attempt for the kernel's SYN
        // retries (about two minutes), and a request for Sequelize's acquire timeout (60 s), past any client's patience.
        // A connection to a PostgreSQL that answers takes milliseconds, so 5 s means it does not; a request that waits
        // 10 s for one of its pooled connections finds the database too busy to be worth waiting for.
        dialectOptions: { connectionTimeoutMillis: 5_000, ...options.queryTimeoutSeconds ? { query_timeout: options.queryTimeoutSeconds * 1000 } : {} },
        pool: { max: options.poolMax ?? defaultDatabasePoolMax, min: 0, idle: 10_000, acquire: 10_000 },
        hooks: {
            // The list reader's prepared statements (plugins/records/list-readers.ts) are the only ones here with a plan
            // to keep: PostgreSQL would keep one plan for all families only when it costs about as much as a family's own,
            // and a family larger than the average one costs far less on its own (LIMIT 51 of its many rows), so each of
            // its pages would be planned anew. Every family's list goes through the same index whatever its size: one plan serves
            // all. Sequelize's own statements are written out or have no plan to choose (an INSERT's bound values).
            afterConnect: async (connection) => {

                await (connection as Client).query('SET plan_cache_mode = force_generic_plan');
                // The text of a timestamp in the shape that pg's parsers and the list reader's (plugins/records/sql-dialects.ts)
                // read, whatever a server's or a role's default is (`SQL, DMY` writes 21/11/2026 09:00:00 UTC).
                await (connection as Client).query('SET datestyle = ISO');
            }
        }
    });
}

/*
 * Another process (the operator CLI) may write to the same SQLite file while the
 * server runs; without a busy timeout SQLite fails at once instead of waiting its turn.
 */
class BusyTimeoutDatabase extends Sqlite3.Database {
    constructor(filename: string, mode: number, callback: (error: Error | null) => void) {

        super(filename, mode, (error) => {

            if (!error) {
                this.configure('busyTimeout', 5000);
            }

            callback(error);
        });
    }
}

const sqliteWithBusyTimeout = { ...Sqlite3, Database: BusyTimeoutDatabase };

/**
 * Opens the database and brings its schema up to date. On PostgreSQL the migrations run on
 * connections of their own (no more of them than `poolMax`), without the query timeout: building an
 * index on a large table, or waiting for another instance's migrations, may rightly take longer.
 * SQLite has no query timeout, and an in-memory database exists on its own connection only: it is
 * migrated where it is used.
 */
export async function openMigratedDatabase(databaseUrl: string, options: DatabaseOptions = {}): Promise<Sequelize> {

    const embedded = databaseUrl.startsWith('sqlite:');
    const migrating = openDatabase(databaseUrl, embedded ? options : { poolMax: options.poolMax });
    try {
        await migrate(migrating);
    }
    catch (error) {
        await migrating.close();
        throw error;
    }

    if (embedded) {
        return migrating;
    }

    await migrating.close();
    return openDatabase(databaseUrl, options);
}

/** Brings the schema up to date. Safe when several instances start at once on PostgreSQL. */
export async function migrate(sequelize: Sequelize): Promise<void> {

    const umzug = new Umzug({
        migrations,
        context: sequelize.getQueryInterface(),
        storage: new SequelizeStorage({ sequelize, tableName: 'schema_migrations' }),
        logger: undefined
    });

    if (sequelize.getDialect() !== 'postgres') {
        await sequelize.query('PRAGMA journal_mode = WAL');       // readers never block the writer
        await umzug.up();
        return;
    }

    // One migrator at a time across instances; the lock ends with the session.
    const lockId = 7_246_733;
    await sequelize.transaction(async (transaction) => {

        await sequelize.query('SELECT pg_advisory_xact_lock(:lockId)', { replacements: { lockId }, transaction });
        await umzug.up();
    });
}

/** Runs `work` in one database transaction (transactionRunner()). */
export type RunInTransaction = <T>(work: (transaction: Transaction) => Promise<T>) => Promise<T>;

/**
 * Runs `work` in one database transaction. SQLite allows a single writer: write
 * transactions of this process queue here instead of failing with SQLITE_BUSY.
 */
export function transactionRunner(sequelize: Sequelize): RunInTransaction {

    if (sequelize.getDialect() === 'postgres') {
        return (work) => sequelize.transaction(work);
    }

    let queue: Promise<unknown> = Promise.resolve();
    return (work) => {

        const result = queue.then(() => sequelize.transaction({ type: Transaction.TYPES.IMMEDIATE }, work));
        queue = result.catch(() => undefined);
        return result;
    };
}

/**
 * Runs reads that must agree with each other (rows a transaction wrote together) in one snapshot:
 * on PostgreSQL a REPEATABLE READ transaction (READ COMMITTED gives each statement its own); on
 * SQLite a transaction of `runInTransaction`'s queue, as this process's writers take their turns.
 */
export function inOneSnapshot<T>(sequelize: Sequelize, runInTransaction: ReturnType<typeof transactionRunner>, work: (transaction: Transaction) => Promise<T>): Promise<T> {

    return sequelize.getDialect() === 'postgres'
        ? sequelize.transaction({ isolationLevel: Transaction.ISOLATION_LEVELS.REPEATABLE_READ }, work)
        : runInTransaction(work);
}
