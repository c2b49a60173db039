import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';
import Pg from 'pg';
import Sqlite3 from 'sqlite3';

import { exportBatchSize } from '../../../plugins/records/record-batches';
import { familyWithKey, testServer, type FamilyFixture } from '../../helpers/server';
import { capturingStderr } from '../../helpers/stderr';
import { bom, insertPersons } from './helpers';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

/** A GET of the running server over real HTTP, with the family's key. */
const fetchExport = (server: Server, family: FamilyFixture, path: string) => fetch(`${server.info.uri}${path}`, { headers: { authorization: `Bearer ${family.key}` } });

describe('streamed exports', () => {

    let server: Server;

    before(async () => {

        server = await testServer();
        await server.start();
    });

    after(() => server.stop());

    /**
     * Calls `seen` before each query of the persons table while `work` runs; what it throws, the
     * query fails with. Lists run on the drivers themselves (a prepared SQLite statement, a pg
     * client), so this watches the drivers.
     */
    async function watchingPersonQueries<T>(seen: () => void, work: () => Promise<T>): Promise<T> {

        const ofPersons = (sql: string) => sql.includes('FROM "persons"');
        const all = Sqlite3.Statement.prototype.all;
        const query = Pg.Client.prototype.query;
        Sqlite3.Statement.prototype.all = function (this: Sqlite3.Statement & { sql: string }, ...args: unknown[]) {

            const callback = args[args.length - 1] as (error: Error | null, rows?: unknown[]) => void;
            try {
                if (ofPersons(this.sql)) {
                    seen();
                }
            }
            catch (error) {
                callback(error as Error);
                return this;
            }

            return (all as (...values: unknown[]) => Sqlite3.Statement).apply(this, args);
        };

        Pg.Client.prototype.query = function (this: Pg.Client, config: unknown, ...rest: unknown[]) {

            const text = typeof config === 'string' ? config : (config as { text?: string }).text ?? '';
            if (ofPersons(text)) {
                try {
                    seen();
                }
                catch (error) {
                    return Promise.reject(error);
                }
            }

            return (query as (...values: unknown[]) => unknown).call(this, config, ...rest);
        } as typeof query;

        try {
            return await work();
        }
        finally {
            Sqlite3.Statement.prototype.all = all;
            Pg.Client.prototype.query = query;
        }
    }

    /** Counts the queries of the persons table while `work` runs. */
    function countingPersonQueries<T>(work: (queries: () => number) => Promise<T>): Promise<T> {

        let queries = 0;
        return watchingPersonQueries(() => void (queries += 1), () => work(() => queries));
    }

    it('sends 100,000 persons as CSV, the first bytes before the last batch is read', { timeout: 240_000 }, async () => {

        const family = await familyWithKey(server);
        const count = 100_000;
        await insertPersons(server, family.familyLongId, count, (index) => ({ first_name: `Person ${index}`, last_name: 'Lindqvist', gender: 'unknown', birth_place: 'Uppsala, Sweden' }));

        await countingPersonQueries(async (queries) => {

            const response = await fetchExport(server, family, '/api/v1/persons?format=csv');
            expect(response.status).to.equal(200);
            expect(response.headers.get('content-length')).to.be.null();         // streamed (chunked), not a buffered body

            const reader = response.body!.getReader();
            const first = await reader.read();
            const queriesAtFirstBytes = queries();

            const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
            let text = decoder.decode(first.value, { stream: true });
            let lines = 0;
            let lastLine = '';
            for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
                text += decoder.decode(chunk.value, { stream: true });
                const parts = text.split('\r\n');
                lines += parts.length - 1;
                text = parts[parts.length - 1];
                lastLine = text || parts[parts.length - 2];
            }

            const batches = queries();
            expect(batches).to.equal(count / exportBatchSize);                  // read in keyset batches
            expect(queriesAtFirstBytes, 'batches read when the first bytes arrived').to.be.below(batches / 2);
            expect(lines).to.equal(count);                                      // the header and 100,000 rows: CRLF between lines
            expect(lastLine).to.contain(`Person ${count - 1},Lindqvist`);
            expect(first.value!.subarray(0, 3)).to.equal(new Uint8Array(Buffer.from(bom)));
        });
    });

    it('answers a HEAD with the headers of the GET without reading or rendering the export', async () => {

        const family = await familyWithKey(server);
        await insertPersons(server, family.familyLongId, 3, (index) => ({ first_name: `Person ${index}`, last_name: 'Berg' }));

        for (const format of ['csv', 'html', 'pdf', 'gedcom']) {
            const url = `${server.info.uri}/api/v1/persons?format=${format}`;
            const headers = { authorization: `Bearer ${family.key}` };
            const get = await fetch(url, { headers });
            expect(get.status).to.equal(200);
            expect((await get.arrayBuffer()).byteLength).to.be.above(0);

            await countingPersonQueries(async (queries) => {

                const head = await fetch(url, { method: 'HEAD', headers });
                expect(head.status).to.equal(200);
                for (const name of ['content-type', 'content-disposition', 'x-content-type-options', 'content-security-policy']) {
                    expect(head.headers.get(name), name).to.equal(get.headers.get(name));
                }

                expect(await head.text()).to.equal('');
                expect(queries(), `persons read for a HEAD of ${format}`).to.equal(0);
            });
        }
    });

    it('cuts the connection, logs and carries on when the database fails part-way through an export', async () => {

        const family = await familyWithKey(server);
        await insertPersons(server, family.familyLongId, exportBatchSize + 200, (index) => ({ first_name: `Person ${index}`, last_name: 'Berg' }));

        let queries = 0;
        const failSecondBatch = () => {

            if (++queries === 2) {
                throw new Error('database went away (simulated)');
            }
        };

        // The deployment logs to stderr: keep those lines, to check them and to keep the test's output clean.
        const { written: logged } = await capturingStderr(() => watchingPersonQueries(failSecondBatch, async () => {

            for (const format of ['csv', 'html', 'pdf']) {
                queries = 0;
                // The 200 may or may not have reached the client before the cut; the body never completes.
                const download = fetchExport(server, family, `/api/v1/persons?format=${format}`).then((response) => response.arrayBuffer());
                await expect(download).to.reject();
            }
        }));

        expect(logged.filter((line) => line.includes('[formats,error]')).map((line) => /\] (\w+ export of persons failed part-way) \(request req_\w{18}\): Error: database went away/.exec(line)?.[1]))
            .to.equal(['csv', 'html', 'pdf'].map((format) => `${format} export of persons failed part-way`));

        const after = await fetchExport(server, family, '/api/v1/persons?format=csv&limit=3');
        expect(after.status).to.equal(200);
        expect((await after.text()).split('\r\n')).to.have.length(4);
    });
});
