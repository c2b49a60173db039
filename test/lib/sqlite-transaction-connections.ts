import Path from 'path';

import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type Sqlite3 from 'sqlite3';

import { openDatabase, transactionRunner } from '../../lib/database';
import { scratchDirectory } from '../helpers/server';
import { until } from '../plugins/stream/client';

export const lab = Lab.script();
const { describe, it, beforeEach, afterEach } = lab;

type Connection = Sqlite3.Database & { open: boolean };

const connectionOf = (transaction: Transaction) => (transaction as unknown as { connection: Connection }).connection;

const names = async (sequelize: Sequelize, transaction?: Transaction) => (await sequelize.query<{ name: string }>('SELECT name FROM people ORDER BY name', { type: QueryTypes.SELECT, transaction })).map((row) => row.name);

/** Runs `count` transactions at once, each holding its connection until all have one; returns their connections. */
async function connectionsAtOnce(sequelize: Sequelize, count: number): Promise<Connection[]> {

    const connections: Connection[] = [];
    let allStarted!: () => void;
    const started = new Promise<void>((resolve) => {

        allStarted = resolve;
    });

    await Promise.all(Array.from({ length: count }, () => sequelize.transaction(async (transaction) => {

        connections.push(connectionOf(transaction));
        if (connections.length === count) {
            allStarted();
        }

        await started;
    })));

    return connections;
}

describe('SQLite transaction connections', () => {

    let sequelize: Sequelize;

    beforeEach(async () => {

        sequelize = openDatabase(`sqlite:${Path.join(scratchDirectory(), 'connections.sqlite')}`);
        await sequelize.query('PRAGMA journal_mode = WAL');
        await sequelize.query('CREATE TABLE people (name TEXT PRIMARY KEY)');
    });

    afterEach(async () => {

        await sequelize.close();
    });

    it('gives a committed transaction\'s connection to the next transaction, which sees what the first wrote', async () => {

        const run = transactionRunner(sequelize);
        const first = await run(async (transaction) => {

            await sequelize.query('INSERT INTO people VALUES (\'Ada\')', { transaction });
            return connectionOf(transaction);
        });

        const second = await run(async (transaction) => {

            expect(await names(sequelize, transaction)).to.equal(['Ada']);
            await sequelize.query('INSERT INTO people VALUES (\'Grace\')', { transaction });
            return connectionOf(transaction);
        });

        expect(second).to.shallow.equal(first);
        expect(first.open).to.be.true();
        expect(await names(sequelize)).to.equal(['Ada', 'Grace']);
    });

    it('reuses a rolled-back transaction\'s connection with nothing of its writes left', async () => {

        const run = transactionRunner(sequelize);
        let rolledBack!: Connection;
        await expect(run(async (transaction) => {

            rolledBack = connectionOf(transaction);
            await sequelize.query('INSERT INTO people VALUES (\'Ada\')', { transaction });
            throw new Error('changed my mind');
        })).to.reject('changed my mind');

        const next = await run(async (transaction) => {

            expect(await names(sequelize, transaction)).to.equal([]);
            await sequelize.query('INSERT INTO people VALUES (\'Grace\')', { transaction });
            return connectionOf(transaction);
        });

        expect(next).to.shallow.equal(rolledBack);
        expect(await names(sequelize)).to.equal(['Grace']);
    });

    it('closes a connection whose COMMIT failed, and the next transaction gets a new one', async () => {

        // A deferred foreign key fails at COMMIT, and SQLite then keeps the transaction open on that connection.
        await sequelize.query('CREATE TABLE pets (name TEXT, owner TEXT REFERENCES people (name) DEFERRABLE INITIALLY DEFERRED)');
        const warn = console.warn;
        console.warn = () => undefined;         // Sequelize's own word on the failed COMMIT
        let failed!: Connection;
        try {
            await expect(sequelize.transaction(async (transaction) => {

                failed = connectionOf(transaction);
                await sequelize.query('INSERT INTO pets VALUES (\'Rex\', \'nobody\')', { transaction });
            })).to.reject(/FOREIGN KEY constraint failed/);
        }
        finally {
            console.warn = warn;
        }

        const next = await transactionRunner(sequelize)(async (transaction) => {

            await sequelize.query('INSERT INTO people VALUES (\'Ada\')', { transaction });
            return connectionOf(transaction);
        });

        expect(next).to.not.shallow.equal(failed);
        expect(failed.open).to.be.false();
        expect(await names(sequelize)).to.equal(['Ada']);
        expect(await sequelize.query('SELECT count(*) AS pets FROM pets', { type: QueryTypes.SELECT })).to.equal([{ pets: 0 }]);
    });

    it('gives transactions at once connections of their own, and keeps two of them waiting afterwards', async () => {

        const first = await connectionsAtOnce(sequelize, 3);
        expect(new Set(first).size).to.equal(3);
        await until(() => first.filter((connection) => connection.open).length === 2, 'the third connection to close');

        const again = await connectionsAtOnce(sequelize, 3);
        expect(again.filter((connection) => first.includes(connection))).to.have.length(2);
    });

    it('closes the waiting connections with the database', async () => {

        const [connection] = await connectionsAtOnce(sequelize, 1);
        expect(connection.open).to.be.true();

        await sequelize.close();
        expect(connection.open).to.be.false();
        sequelize = openDatabase('sqlite::memory:');          // for afterEach
    });
});
