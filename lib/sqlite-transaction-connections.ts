import type { Sequelize } from 'sequelize';
import type Sqlite3 from 'sqlite3';

type SqliteConnection = Sqlite3.Database & { uuid?: string };

/** What this changes of Sequelize's SQLite connection manager (sequelize/lib/dialects/sqlite/connection-manager.js, v6). */
interface SqliteConnectionManager {
    /** Open connections by transaction id; `default` serves every query outside a transaction. */
    connections: Record<string, SqliteConnection>;
    getConnection(options?: { uuid?: string }): Promise<SqliteConnection>;
    releaseConnection(connection: SqliteConnection, force?: boolean): void;
    destroyConnection(connection: SqliteConnection): Promise<void>;
    _onProcessExit(): Promise<void>;
}

// This process's transactions take turns (transactionRunner queues them), so one waiting connection serves them; a
// second one leaves room for a transaction begun outside the queue (a migration's).
const idleKept = 2;

function closeConnection(connection: SqliteConnection): Promise<void> {

    return new Promise((resolve) => connection.close(() => resolve()));
}

/**
 * Sequelize gives each SQLite transaction a connection of its own, opened for it and closed when it ends: every write
 * would open the database file again, set the connection's pragmas and have SQLite read the schema anew. Here a
 * connection whose transaction committed or rolled back waits for the next transaction instead.
 *
 * Only a transaction that ended cleanly gives its connection back (Sequelize's `cleanup()`): it is out of any
 * transaction then, as a new connection is. One whose BEGIN, COMMIT or ROLLBACK failed is in a state nobody knows, and
 * Sequelize destroys it (`forceCleanup()`): that one is closed, where Sequelize's own manager left it open.
 *
 * An in-memory database has a single connection, which Sequelize never closes: nothing to change there.
 */
export function reuseTransactionConnections(sequelize: Sequelize): void {

    const manager = sequelize.connectionManager as unknown as SqliteConnectionManager;
    const idle: SqliteConnection[] = [];
    const open = manager.getConnection.bind(manager);
    const closeAll = manager._onProcessExit.bind(manager);

    const forget = (connection: SqliteConnection) => {

        if (manager.connections[connection.uuid!] === connection) {
            delete manager.connections[connection.uuid!];
        }
    };

    manager.getConnection = (options) => {

        const uuid = options?.uuid;
        const waiting = uuid && uuid !== 'default' && !manager.connections[uuid] ? idle.pop() : undefined;
        if (!waiting) {
            return open(options);
        }

        manager.connections[uuid!] = waiting;
        return Promise.resolve(waiting);
    };

    // Sequelize calls this after every query too, with a transaction's connection only when the transaction ended.
    manager.releaseConnection = (connection) => {

        if (!connection.uuid) {
            return;
        }

        forget(connection);
        if (idle.length < idleKept) {
            idle.push(connection);
        }
        else {
            void closeConnection(connection);
        }
    };

    manager.destroyConnection = (connection) => {

        if (!connection.uuid) {
            return Promise.resolve();
        }

        forget(connection);
        return closeConnection(connection);
    };

    // sequelize.close(): the waiting connections are closed with the others.
    manager._onProcessExit = async () => {

        await Promise.all(idle.splice(0).map(closeConnection));
        await closeAll();
    };
}
