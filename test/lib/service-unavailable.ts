import Path from 'path';

import type { Server, ServerInjectResponse } from '@hapi/hapi';
import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';
import { Sequelize } from 'sequelize';
import Sqlite3 from 'sqlite3';

import { requestIdPattern } from '../../lib/request-id';
import { retryAfterSeconds } from '../../lib/service-unavailable';
import { bodyOf, createBody, dataOf } from '../plugins/records/fixtures';
import { SiteClient, siteAccount } from '../plugins/site/client';
import { until } from '../plugins/stream/client';
import { keptLog } from '../helpers/kept-log';
import { freePort } from '../helpers/ports';
import { scratchDatabase, type ScratchDatabase } from '../helpers/scratch-services';
import { capturingStderr } from '../helpers/stderr';
import { familyWithKey, scratchDirectory, testServer, testVariant, type FamilyFixture } from '../helpers/server';
import { tcpRelay, type TcpRelay } from '../helpers/tcp-relay';
import { timed } from '../helpers/timing';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

/** The 503 of a database that does not answer: the JSON every error has, with Retry-After and the request's id. */
function expectServiceUnavailable(response: ServerInjectResponse, what: string): void {

    expect(response.statusCode, `${what}: ${response.payload}`).to.equal(503);
    expect(bodyOf(response), what).to.equal({
        statusCode: 503,
        error: 'Service Unavailable',
        message: `The service's database is not answering just now: retry after ${retryAfterSeconds} seconds.`,
        code: 'service_unavailable'
    });
    expect(response.headers['retry-after'], what).to.equal(String(retryAfterSeconds));
    expect(response.headers['x-request-id'], what).to.match(requestIdPattern);
    expect(response.headers['content-type'] as string, what).to.startWith('application/json');
}

/** Expects one line about each request answered 503, naming its id, method and path and the driver's words, and no stack trace. */
function expectOneLineEach(lines: string[], responses: ServerInjectResponse[], driverWords: RegExp): void {

    for (const response of responses) {
        const id = response.headers['x-request-id'] as string;
        const about = lines.filter((line) => line.includes(id));
        expect(about, id).to.have.length(1);
        expect(about[0]).to.startWith(`[request,unavailable,warn] ${id} ${response.request.method.toUpperCase()} ${response.request.path}: 503, the database is `);
        expect(about[0]).to.match(driverWords);
        expect(about[0]).to.not.contain('\n');
    }
}

describe('the answer to a failure', () => {

    let server: Server;
    const kept = keptLog();

    before(async () => {

        server = await testServer({ log: kept.log });
        const { sequelize } = server.app.services;
        const refusing = new Sequelize(`postgres://postgres@127.0.0.1:${await freePort()}/postgres`, { dialect: 'postgres', logging: false });
        const failing: Record<string, () => Promise<unknown>> = {
            'type-error': async () => (undefined as unknown as { x: { y: number } }).x.y,
            'syntax-error': () => sequelize.query('SELEC 1'),
            'refused': () => refusing.query('SELECT 1')
        };
        server.route(Object.entries(failing).map(([name, fail]) => ({ method: 'GET', path: `/test/${name}`, options: { auth: false, handler: fail } })));
        server.ext('onPostStop', () => refusing.close());
    });

    after(() => server.stop());

    it('is a 500 that names the request id for a bug, logged with its stack', async () => {

        for (const name of ['type-error', 'syntax-error']) {
            // hapi prints a TypeError's stack on stderr too (its debug output for developer errors): kept off the test's output.
            const { result: response } = await capturingStderr(() => server.inject(`/test/${name}`));
            expect(response.statusCode, name).to.equal(500);
            expect(bodyOf(response), name).to.equal({
                statusCode: 500,
                error: 'Internal Server Error',
                message: `An internal server error occurred. Quote request id ${response.headers['x-request-id']} when reporting it.`,
                code: 'internal_error'
            });
            expect(response.headers['retry-after'], name).to.not.exist();
            expect(kept.lines.find((line) => line.startsWith(`[request,error] ${response.headers['x-request-id']} `)), name).to.contain('\n    at ');
        }
    });

    it('is a 503 to retry when the database refuses the connection, logged in one line', async () => {

        const response = await server.inject('/test/refused');
        expectServiceUnavailable(response, 'a refused connection');
        expectOneLineEach(kept.lines, [response], /503, the database is unreachable: connect ECONNREFUSED 127\.0\.0\.1:\d+$/);
    });
});

describe('a deployment whose PostgreSQL is cut off', { skip: testVariant !== 'postgres' }, () => {

    const queryTimeoutSeconds = 2;

    let database: ScratchDatabase;
    let relay: TcpRelay;
    let server: Server;
    const kept = keptLog();

    before(async () => {

        const adminUrl = new URL(process.env.TEST_DATABASE_URL!);
        database = (await scratchDatabase(adminUrl.toString(), 'fr_outage'))!;
        relay = await tcpRelay(Number(adminUrl.port || 5432), adminUrl.hostname);
        const throughRelay = new URL(database.url);
        throughRelay.port = String(relay.port);
        server = await testServer({ env: { DATABASE_URL: throughRelay.toString(), DATABASE_QUERY_TIMEOUT: String(queryTimeoutSeconds) }, log: kept.log });
    });

    after(async () => {

        await server?.stop();
        await relay?.close();
        await database?.drop();
    });

    it('answers 503 service_unavailable with Retry-After at once, logs one line a request, and recovers with nothing half-written', async () => {

        const family = await familyWithKey(server);
        const firstUse = await familyWithKey(server);            // its key is never used before the cut: not cached
        const id = dataOf(await family.inject('POST', '/api/v1/persons', createBody('persons')), 201).id;
        const requests: [string, string, unknown?][] = [
            ['GET', '/api/v1/persons'],
            ['GET', `/api/v1/persons/${id}`],
            ['GET', '/api/v1/persons?format=csv'],
            ['POST', '/api/v1/persons', { first_name: 'Written', last_name: 'During the cut' }]
        ];
        const eventsOf = (client: FamilyFixture) => server.app.services.models.ChangeEvent.count({ where: { family_long_id: client.familyLongId } });
        expect(await eventsOf(family)).to.equal(1);

        await relay.cut();
        const answers: ServerInjectResponse[] = [];
        for (const [method, url, payload] of requests) {
            const { result, ms } = await timed(() => family.inject(method, url, payload));
            expectServiceUnavailable(result, `${method} ${url}`);
            expect(ms, `${method} ${url}`).to.be.below(2000);
            answers.push(result);
        }

        // A key not yet cached must be looked up: the outage is a 503, never a 401 that calls the key invalid.
        const unknownYet = await firstUse.inject('GET', '/api/v1/persons');
        expectServiceUnavailable(unknownYet, 'the first request of a key');
        expect(unknownYet.headers['www-authenticate']).to.not.exist();
        answers.push(unknownYet);

        expect((await server.inject('/readyz')).statusCode).to.equal(503);
        expectOneLineEach(kept.lines, answers, /ECONNREFUSED|Connection terminated unexpectedly/);
        expect(kept.lines.filter((line) => line.includes('[request,error]'))).to.equal([]);

        await relay.restore();
        expect((await server.inject('/readyz')).statusCode).to.equal(200);
        const names = dataOf(await family.inject('GET', '/api/v1/persons')).map((person: { last_name: string }) => person.last_name);
        expect(names).to.not.include('During the cut');
        expect(dataOf(await family.inject('GET', `/api/v1/persons/${id}`)).id).to.equal(id);
        expect((await family.inject('GET', '/api/v1/persons?format=csv')).statusCode).to.equal(200);
        expect(await eventsOf(family)).to.equal(1);
        dataOf(await family.inject('POST', '/api/v1/persons', createBody('persons')), 201);
        expect(await eventsOf(family)).to.equal(2);
        expect((await firstUse.inject('GET', '/api/v1/persons')).statusCode).to.equal(200);
    });

    it('answers 503 within the connect timeout when the database stops answering, rather than holding the request', async () => {

        const family = await familyWithKey(server);
        relay.stall();
        await new Promise((resolve) => setTimeout(resolve, 100));        // the pool sees its connections closed: the request must connect anew
        try {
            const { result, ms } = await timed(() => family.inject('GET', '/api/v1/persons'));
            expectServiceUnavailable(result, 'a list while the database is silent');
            expect(ms).to.be.within(4000, 8000);            // lib/database.ts: 5 s to connect
        }
        finally {
            await relay.restore();
        }

        expect((await family.inject('GET', '/api/v1/persons')).statusCode).to.equal(200);
    });

    it('answers 503 when a query goes unanswered on a connection that stays open, and drops that connection for a new one', { timeout: 60_000 }, async () => {

        const family = await familyWithKey(server);
        const id = dataOf(await family.inject('POST', '/api/v1/persons', createBody('persons')), 201).id;
        expect((await family.inject('GET', '/api/v1/persons')).statusCode).to.equal(200);
        const { sequelize } = server.app.services;
        const openAtFreeze = (sequelize.connectionManager as unknown as { pool: { size: number } }).pool.size;
        expect(openAtFreeze).to.be.at.least(1);

        relay.freeze();
        const answers: ServerInjectResponse[] = [];
        try {
            // Every connection open at the freeze fails the query sent on it once, after the timeout, and is dropped; the
            // pool connects anew, and new connections are relayed. Kept, a connection would fail every list that drew it.
            let list = await timed(() => family.inject('GET', '/api/v1/persons'));
            while (list.result.statusCode !== 200 && answers.length <= openAtFreeze) {
                expectServiceUnavailable(list.result, 'a list on a connection gone silent');
                expect(list.ms).to.be.within(queryTimeoutSeconds * 1000 - 100, queryTimeoutSeconds * 1000 + 2000);
                answers.push(list.result);
                list = await timed(() => family.inject('GET', '/api/v1/persons'));
            }

            expect(list.result.statusCode).to.equal(200);
            expect(answers.length).to.be.within(1, openAtFreeze);
            expectOneLineEach(kept.lines, answers, /503, the database is unreachable: Query read timeout$/);
            expect(kept.lines.filter((line) => line.includes('[request,error]'))).to.equal([]);
            expect(dataOf(await family.inject('GET', `/api/v1/persons/${id}`)).id).to.equal(id);
        }
        finally {
            await relay.restore();
        }
    });

    it('shows the hosted site\'s 503 page, not the 500 page, when signing in finds no database', async () => {

        const account = await siteAccount(server, { role: 'super-admin' });
        const client = await new SiteClient(server).ready();
        await relay.cut();
        try {
            const page = await client.post('/login', { email: account.email, password: account.password });
            expect(page.statusCode).to.equal(503);
            expect(page.headers['content-type'] as string).to.startWith('text/html');
            expect(page.headers['retry-after']).to.equal(String(retryAfterSeconds));
            expect(page.payload).to.contain('Briefly unavailable');
            expect(page.payload).to.contain('The service cannot reach its database just now.');
            expect(page.payload).to.not.contain('Something went wrong');
        }
        finally {
            await relay.restore();
        }

        expect((await client.post('/login', { email: account.email, password: account.password })).statusCode).to.equal(302);
    });

    it('keeps a signed-in manager signed in through the outage: the 503 page, not the sign-in page, and the cookie kept', async () => {

        const account = await siteAccount(server, { role: 'super-admin' });
        const client = await new SiteClient(server).ready();
        expect((await client.post('/login', { email: account.email, password: account.password })).statusCode).to.equal(302);
        expect((await client.get('/admin/apis')).statusCode).to.equal(200);

        await relay.cut();
        try {
            const page = await client.get('/admin/apis');
            expect(page.statusCode).to.equal(503);
            expect(page.payload).to.contain('Briefly unavailable');
            expect(([] as string[]).concat(page.headers['set-cookie'] ?? []).some((cookie) => cookie.startsWith('fr_session=;'))).to.be.false();
        }
        finally {
            await relay.restore();
        }

        expect((await client.get('/admin/apis')).statusCode).to.equal(200);
    });
    it('says once that the webhook worker cannot run while the database is cut off, not a stack trace every second, and when it runs again', { timeout: 20_000 }, async () => {

        await server.start();            // the background work: the webhook sweep wakes the worker every second
        const aboutWorker = () => kept.lines.filter((line) => line.includes('The webhook delivery worker'));
        // Sequelize says on stderr that it drops the connection of a transaction it could not roll back: kept off the test's output.
        await capturingStderr(async () => {

            await relay.cut();
            try {
                await until(() => aboutWorker().length > 0, 'the worker\'s warning', 5000);
                await new Promise((resolve) => setTimeout(resolve, 3000));         // three more sweeps
                expect(aboutWorker()).to.have.length(1);
                expect(aboutWorker()[0]).to.match(/^\[webhooks,unavailable,warn\] The webhook delivery worker did not run: the database is unreachable \((?:.*ECONNREFUSED.*|Connection terminated unexpectedly)\); it runs again on its schedule, and says here when it does$/);
                expect(kept.lines.filter((line) => line.includes('error]'))).to.equal([]);
            }
            finally {
                await relay.restore();
            }

            await until(() => aboutWorker().length === 2, 'the worker running again', 5000);
        });
        expect(aboutWorker()[1]).to.match(/^\[webhooks,unavailable\] The webhook delivery worker runs again: the database answers \(\d+ runs missed\)$/);
    });
});

describe('a deployment whose SQLite file another connection keeps locked', { skip: testVariant !== 'sqlite' }, () => {

    let server: Server;
    let family: FamilyFixture;
    const kept = keptLog();

    before(async () => {

        server = await testServer({ env: { DATABASE_URL: `sqlite:${Path.join(scratchDirectory(), 'locked.sqlite')}` }, log: kept.log });
        family = await familyWithKey(server);
    });

    after(() => server.stop());

    it('answers a write 503 service_unavailable once the busy timeout runs out, and takes it once the lock is gone', async () => {

        const storage = server.app.services.config.databaseUrl.slice('sqlite:'.length);
        const other = await new Promise<Sqlite3.Database>((resolve, reject) => {

            const opened: Sqlite3.Database = new Sqlite3.Database(storage, (error) => (error ? reject(error) : resolve(opened)));
        });
        const run = (sql: string) => new Promise<void>((resolve, reject) => other.exec(sql, (error) => (error ? reject(error) : resolve())));

        await run('BEGIN EXCLUSIVE');
        try {
            // Sequelize says on stderr that it closes the connection whose BEGIN failed: kept off the test's output.
            const { result: { result, ms } } = await capturingStderr(() => timed(() => family.inject('POST', '/api/v1/persons', { first_name: 'Written', last_name: 'While locked' })));
            expectServiceUnavailable(result, 'a write while locked');
            expect(ms).to.be.within(4500, 12_000);         // SQLite's 5 s busy timeout (lib/database.ts), once
            expectOneLineEach(kept.lines, [result], /SQLITE_BUSY: database is locked/);
        }
        finally {
            await run('ROLLBACK');
            await new Promise<void>((resolve) => other.close(() => resolve()));
        }

        dataOf(await family.inject('POST', '/api/v1/persons', { first_name: 'Written', last_name: 'After the lock' }), 201);
        expect(dataOf(await family.inject('GET', '/api/v1/persons')).map((person: { last_name: string }) => person.last_name)).to.equal(['After the lock']);
    });
});
