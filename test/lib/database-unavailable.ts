import Net from 'net';
import Path from 'path';

import Boom from '@hapi/boom';
import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';
import { Client, DatabaseError as PgDatabaseError } from 'pg';
import { ConnectionAcquireTimeoutError, ConnectionRefusedError, Sequelize, TimeoutError } from 'sequelize';
import Sqlite3 from 'sqlite3';

import { databaseUnavailable } from '../../lib/database-unavailable';
import { freePort } from '../helpers/ports';
import { scratchDirectory, testVariant } from '../helpers/server';
import { tcpRelay } from '../helpers/tcp-relay';

export const lab = Lab.script();
const { describe, it } = lab;

/** What `work` rejects with: the error a real failure makes. */
async function failureOf(work: () => Promise<unknown>): Promise<Error> {

    try {
        await work();
    }
    catch (error) {
        return error as Error;
    }

    throw new Error('expected a failure');
}

/** A pg client's connection, tried on `port` of 127.0.0.1. */
const pgConnecting = (port: number) => failureOf(() => new Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' }).connect());

/** Sequelize on PostgreSQL at `port` of 127.0.0.1, running a query; closed afterwards. */
async function sequelizeQuerying(port: number, options: object = {}): Promise<Error> {

    const sequelize = new Sequelize(`postgres://postgres@127.0.0.1:${port}/postgres`, { dialect: 'postgres', logging: false, ...options });
    try {
        return await failureOf(() => sequelize.query('SELECT 1'));
    }
    finally {
        await sequelize.close();
    }
}

/** A sqlite3 connection to `file`, opened. */
const sqliteConnection = (file: string) => new Promise<Sqlite3.Database>((resolve, reject) => {

    const database: Sqlite3.Database = new Sqlite3.Database(file, (error) => (error ? reject(error) : resolve(database)));
});

const run = (database: Sqlite3.Database, sql: string) => new Promise<void>((resolve, reject) => database.exec(sql, (error) => (error ? reject(error) : resolve())));

describe('databaseUnavailable()', () => {

    it('recognises a refused connection: pg\'s own error, Sequelize\'s ConnectionRefusedError, and either wrapped by hapi', async () => {

        const port = await freePort();
        const raw = await pgConnecting(port);
        expect(databaseUnavailable(raw)).to.equal({ reason: 'unreachable', message: `connect ECONNREFUSED 127.0.0.1:${port}` });

        const refused = await sequelizeQuerying(port);
        expect(refused).to.be.an.instanceof(ConnectionRefusedError);
        expect(databaseUnavailable(refused)).to.equal({ reason: 'unreachable', message: `connect ECONNREFUSED 127.0.0.1:${port}` });

        // hapi makes a handler's error a Boom in place (500), or keeps it as the data of another.
        expect(databaseUnavailable(Boom.boomify(refused))).to.equal({ reason: 'unreachable', message: `connect ECONNREFUSED 127.0.0.1:${port}` });
        expect(databaseUnavailable(Boom.badImplementation('The records could not be read', raw))?.reason).to.equal('unreachable');
        expect(databaseUnavailable(new Error('The export failed', { cause: refused }))).to.equal({ reason: 'unreachable', message: `connect ECONNREFUSED 127.0.0.1:${port}` });
    });

    it('recognises a connection the server drops, and one that never answers (the pool\'s acquire timeout)', async () => {

        const dropping = Net.createServer((socket) => socket.destroy());
        await new Promise<void>((resolve) => dropping.listen(0, '127.0.0.1', resolve));
        const droppingPort = (dropping.address() as Net.AddressInfo).port;
        try {
            const dropped = await pgConnecting(droppingPort);
            expect(dropped.message).to.equal('Connection terminated unexpectedly');
            expect(databaseUnavailable(dropped)).to.equal({ reason: 'unreachable', message: 'Connection terminated unexpectedly' });
            expect(databaseUnavailable(await sequelizeQuerying(droppingPort))?.reason).to.equal('unreachable');
        }
        finally {
            await new Promise((resolve) => dropping.close(resolve));
        }

        const silent = await tcpRelay(await freePort());
        silent.stall();
        try {
            // The version known, as after a deployment's first query: Sequelize then connects only through its pool. The
            // connection attempt gives up later than the pool's wait, and closing Sequelize then waits no longer.
            const waited = await sequelizeQuerying(silent.port, { databaseVersion: '16.0.0', pool: { acquire: 200 }, dialectOptions: { connectionTimeoutMillis: 1000 } });
            expect(waited).to.be.an.instanceof(ConnectionAcquireTimeoutError);
            expect(databaseUnavailable(waited)?.reason).to.equal('unreachable');
        }
        finally {
            await silent.close();
        }
    });

    it('recognises PostgreSQL\'s SQLSTATEs of a server shutting down, starting, full, or losing the connection', () => {

        const sqlState = (code: string) => Object.assign(new PgDatabaseError('as PostgreSQL says it', 100, 'error'), { code, severity: 'FATAL' });
        for (const code of ['57P01', '57P02', '57P03', '53300', '08000', '08003', '08006', '08001', '08004', '08P01']) {
            expect(databaseUnavailable(sqlState(code)), code).to.equal({ reason: 'unreachable', message: 'as PostgreSQL says it' });
        }

        for (const code of ['42601', '23505', '40001', '57014', '22P02', '0800', '080000']) {
            expect(databaseUnavailable(sqlState(code)), code).to.be.undefined();
        }
    });

    it('recognises a session the administrator ends (57P01), as pg and Sequelize report it', { skip: testVariant !== 'postgres' }, async () => {

        const url = new URL(process.env.TEST_DATABASE_URL!);
        const client = new Client({ connectionString: url.toString() });
        client.on('error', () => undefined);            // the connection ends with it
        await client.connect();
        const ended = await failureOf(() => client.query('SELECT pg_terminate_backend(pg_backend_pid())'));
        expect((ended as Error & { code?: string }).code).to.equal('57P01');
        expect(databaseUnavailable(ended)?.reason).to.equal('unreachable');
        await client.end().catch(() => undefined);

        const sequelize = new Sequelize(url.toString(), { dialect: 'postgres', logging: false });
        try {
            const wrapped = await failureOf(() => sequelize.query('SELECT pg_terminate_backend(pg_backend_pid())'));
            expect(databaseUnavailable(wrapped)).to.equal({ reason: 'unreachable', message: 'terminating connection due to administrator command' });
        }
        finally {
            await sequelize.close();
        }
    });

    it('recognises a query left unanswered past the query timeout on a connection that stays open, as pg and Sequelize report it', { skip: testVariant !== 'postgres' }, async () => {

        const url = new URL(process.env.TEST_DATABASE_URL!);
        const relay = await tcpRelay(Number(url.port || 5432), url.hostname);
        url.port = String(relay.port);
        const client = new Client({ connectionString: url.toString(), query_timeout: 300 });
        const sequelize = new Sequelize(url.toString(), { dialect: 'postgres', logging: false, dialectOptions: { query_timeout: 300 } });
        try {
            await client.connect();
            await sequelize.query('SELECT 1');
            relay.freeze();
            const unanswered = await failureOf(() => client.query('SELECT 1'));
            expect(databaseUnavailable(unanswered)).to.equal({ reason: 'unreachable', message: 'Query read timeout' });
            expect(databaseUnavailable(await failureOf(() => sequelize.query('SELECT 1')))).to.equal({ reason: 'unreachable', message: 'Query read timeout' });
        }
        finally {
            await relay.close();
            await client.end().catch(() => undefined);
            await sequelize.close();
        }
    });

    it('recognises SQLite\'s lock held past the busy timeout, from sqlite3 itself and from Sequelize', async () => {

        const file = Path.join(scratchDirectory(), 'busy.sqlite');
        const holder = await sqliteConnection(file);
        await run(holder, 'CREATE TABLE t (x INTEGER); BEGIN EXCLUSIVE; INSERT INTO t VALUES (1)');
        const writer = await sqliteConnection(file);
        writer.configure('busyTimeout', 50);
        const sequelize = new Sequelize({ dialect: 'sqlite', storage: file, logging: false, retry: { max: 1 } });
        try {
            const busy = await failureOf(() => run(writer, 'INSERT INTO t VALUES (2)'));
            expect(databaseUnavailable(busy)).to.equal({ reason: 'busy', message: 'SQLITE_BUSY: database is locked' });

            const timedOut = await failureOf(() => sequelize.query('INSERT INTO t VALUES (3)'));
            expect(timedOut).to.be.an.instanceof(TimeoutError);
            expect(databaseUnavailable(Boom.boomify(timedOut))).to.equal({ reason: 'busy', message: 'SQLITE_BUSY: database is locked' });
        }
        finally {
            await sequelize.close();
            await run(holder, 'ROLLBACK');
            await Promise.all([holder, writer].map((database) => new Promise((resolve) => database.close(resolve))));
        }
    });

    it('leaves a bug alone: a TypeError, a SQL syntax error, a constraint, an error of another kind', async () => {

        const typeError = await failureOf(async () => (undefined as unknown as { x: { y: number } }).x.y);
        expect(typeError).to.be.an.instanceof(TypeError);
        expect(databaseUnavailable(Boom.boomify(typeError))).to.be.undefined();

        const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
        try {
            expect(databaseUnavailable(await failureOf(() => sequelize.query('SELEC 1')))).to.be.undefined();
            await sequelize.query('CREATE TABLE t (x INTEGER PRIMARY KEY)');
            await sequelize.query('INSERT INTO t VALUES (1)');
            expect(databaseUnavailable(await failureOf(() => sequelize.query('INSERT INTO t VALUES (1)')))).to.be.undefined();
        }
        finally {
            await sequelize.close();
        }

        expect(databaseUnavailable(Boom.notFound('No such record'))).to.be.undefined();
        expect(databaseUnavailable(new Error('ECONNREFUSED, as a message only'))).to.be.undefined();
    });

    it('never throws, whatever it is given, and stops on a cycle', () => {

        const cyclic = Object.assign(new Error('a wrapper of itself'), {}) as Error & { parent?: unknown; cause?: unknown };
        cyclic.parent = cyclic;
        cyclic.cause = cyclic;
        const hostile = new Error('a getter that throws');
        Object.defineProperty(hostile, 'code', { get() {

            throw new Error('no code for you');
        } });
        const { proxy, revoke } = Proxy.revocable(new Error('revoked'), {});
        revoke();

        for (const given of [undefined, null, 'ECONNREFUSED', 42, { code: 'ECONNREFUSED' }, cyclic, hostile, proxy]) {
            expect(databaseUnavailable(given)).to.be.undefined();
        }
    });
});
