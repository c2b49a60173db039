import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import { consoleLog, type Log } from '../../lib/logger';
import { keptLog } from '../helpers/kept-log';
import { capturingStderr } from '../helpers/stderr';

export const lab = Lab.script();
const { describe, it } = lab;

/** What `work` writes to stderr, write by write. */
const stderrOf = async (work: () => void) => (await capturingStderr(work)).written;

const isoTime = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const failure = 'delivery 7: Error: connect ECONNREFUSED\n    at TCPConnectWrap.afterConnect (node:net:1555:16)';

describe('consoleLog()', () => {

    it('writes text lines by default: time, tags, message', async () => {

        const [line] = await stderrOf(() => consoleLog()(['policy', 'info'], 'policies reloaded'));
        const [time, rest] = [line.slice(0, line.indexOf(' ')), line.slice(line.indexOf(' ') + 1)];
        expect(time).to.match(isoTime);
        expect(rest).to.equal('[policy,info] policies reloaded\n');
    });

    it('writes one JSON object a line in the json format, a stack trace inside its line, with a level from the tags', async () => {

        const log: Log = consoleLog(false, 'json');
        const written = await stderrOf(() => {

            log(['webhooks', 'error'], failure);
            log(['webhooks', 'warn'], 'disabled webhook endpoint whe_1');
            log(['policy', 'info'], 'policies reloaded');
            log(['files'], 'removed stored file ab12');
        });

        expect(written).to.have.length(4);
        for (const line of written) {
            expect(line.endsWith('\n') && !line.slice(0, -1).includes('\n'), line).to.be.true();
        }

        const [error, warning, info, untagged] = written.map((line) => JSON.parse(line));
        expect(error.time).to.match(isoTime);
        expect(error).to.equal({ time: error.time, level: 'error', tags: ['webhooks', 'error'], message: failure });
        expect(warning.level).to.equal('warn');
        expect(info.level).to.equal('info');
        expect(untagged.level).to.equal('info');
    });

    it('gives a line about a request its id, method and path as fields in JSON; a text line has them in its message', async () => {

        const fields = { request_id: 'req_0123456789abcdefgh', method: 'POST', path: '/api/v1/persons' };
        const [json] = await stderrOf(() => consoleLog(false, 'json')(['request', 'error'], 'req_0123456789abcdefgh POST /api/v1/persons: Error: boom', fields));
        expect(JSON.parse(json)).to.include({ level: 'error', ...fields });

        const [text] = await stderrOf(() => consoleLog()(['request', 'error'], 'req_0123456789abcdefgh POST /api/v1/persons: Error: boom', fields));
        expect(text).to.endWith('[request,error] req_0123456789abcdefgh POST /api/v1/persons: Error: boom\n');
    });

    it('keeps only errors when quiet (the CLI), in either format', async () => {

        for (const format of ['text', 'json'] as const) {
            const written = await stderrOf(() => {

                const log = consoleLog(true, format);
                log(['policy', 'info'], 'policies reloaded');
                log(['webhooks', 'warn'], 'disabled');
                log(['usage', 'error'], 'writing usage counts failed');
            });
            expect(written).to.have.length(1);
            expect(written[0]).to.contain('writing usage counts failed');
        }
    });
});

describe('keptLog(), the log of a test that provokes errors', () => {

    it('keeps every line for the test, printing only the errors none of the expected patterns matches', async () => {

        const { log, lines } = keptLog([/^\[redis,error\] /]);
        const written = await stderrOf(() => {

            log(['redis', 'error'], 'Socket closed unexpectedly');
            log(['redis'], 'Redis answers again, after 2 s without it.');
            log(['request', 'error'], 'req_0123456789abcdefgh GET /api/v1/persons: Error: boom');
        });

        expect(lines).to.equal(['[redis,error] Socket closed unexpectedly', '[redis] Redis answers again, after 2 s without it.', '[request,error] req_0123456789abcdefgh GET /api/v1/persons: Error: boom']);
        expect(written).to.have.length(1);
        expect(written[0]).to.endWith('[request,error] req_0123456789abcdefgh GET /api/v1/persons: Error: boom\n');
    });

    it('prints nothing without patterns (a unit handed a log, whose test reads every line)', async () => {

        const { log, lines } = keptLog();
        expect(await stderrOf(() => log(['usage', 'error'], 'writing usage counts failed'))).to.equal([]);
        expect(lines).to.equal(['[usage,error] writing usage counts failed']);
    });
});
