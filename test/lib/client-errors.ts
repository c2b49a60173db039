import Http from 'http';
import Net from 'net';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import Hapi, { type Server } from '@hapi/hapi';

import { answerClientErrors } from '../../lib/client-errors';
import { familyWithKey, testServer, type FamilyFixture } from '../helpers/server';
import { parsedAnswer, rawExchange, type RawAnswer } from '../helpers/raw-http';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('requests Node cannot read as HTTP', () => {

    let server: Server;
    let family: FamilyFixture;

    before(async () => {

        server = await testServer();
        await server.start();
        family = await familyWithKey(server);
    });

    after(() => server.stop());

    /** The answer is the service's JSON error, not to be cached, and the server closed the connection after it. */
    function expectJsonError(answer: RawAnswer, statusLine: string, code: string, mentioning: string): void {

        expect(answer.statusLine).to.equal(statusLine);
        expect(answer.headers['content-type']).to.equal('application/json; charset=utf-8');
        expect(answer.headers['cache-control']).to.equal('no-store');
        expect(answer.headers.connection).to.equal('close');
        expect(Number(answer.headers['content-length'])).to.equal(Buffer.byteLength(answer.body));
        const payload = JSON.parse(answer.body);
        expect(payload).to.include({ statusCode: Number(statusLine.split(' ')[1]), code });
        expect(payload.message).to.contain(mentioning);
    }

    const get = (path: string, headers = '') => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${family.key}\r\n${headers}Connection: close\r\n\r\n`;

    it('answers headers over Node\'s limit with 431 too_large in JSON, and closes the connection', async () => {

        const answer = parsedAnswer(await rawExchange(server, get('/api/v1/persons', `X-Padding: ${'a'.repeat(Http.maxHeaderSize)}\r\n`)));
        expectJsonError(answer, 'HTTP/1.1 431 Request Header Fields Too Large', 'too_large', `more than the ${Http.maxHeaderSize} bytes`);
    });

    it('answers a URL over Node\'s limit with 431 too_large too: Node counts the request line with the headers', async () => {

        const answer = parsedAnswer(await rawExchange(server, get(`/api/v1/persons?search=${'a'.repeat(Http.maxHeaderSize)}`)));
        expectJsonError(answer, 'HTTP/1.1 431 Request Header Fields Too Large', 'too_large', 'send a shorter URL');
    });

    it('answers a request whose headers do not arrive in time with 408, as Node would, in JSON', async () => {

        // Node checks its timeouts every 30 s by default: a listener of its own that checks every 50 ms.
        const slow = Hapi.server({ host: '127.0.0.1', port: 0, listener: Http.createServer({ connectionsCheckingInterval: 50, headersTimeout: 200, requestTimeout: 300 }) });
        answerClientErrors(slow);
        await slow.start();
        try {
            const answer = parsedAnswer(await rawExchange(slow, 'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n'));
            expectJsonError(answer, 'HTTP/1.1 408 Request Timeout', 'invalid_request', 'did not arrive in time (its headers within 0.2 s, the whole of it within 0.3 s)');
        }
        finally {
            await slow.stop();
        }
    });

    it('answers headers within the limit as usual', async () => {

        const answer = parsedAnswer(await rawExchange(server, get('/api/v1/persons', `X-Padding: ${'a'.repeat(Http.maxHeaderSize / 2)}\r\n`)));
        expect(answer.statusLine).to.equal('HTTP/1.1 200 OK');
        expect(JSON.parse(answer.body).meta.resource).to.equal('persons');
    });

    it('answers bytes that are not HTTP with 400 invalid_request in JSON, and closes the connection', async () => {

        for (const request of ['NOT HTTP AT ALL\r\n\r\n', 'GET /api/v1/persons HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header\r\n\r\n', 'GET /api/v1/persons HTTP/9.9\r\n\r\n']) {
            expectJsonError(parsedAnswer(await rawExchange(server, request)), 'HTTP/1.1 400 Bad Request', 'invalid_request', 'not HTTP/1.1 the service can read');
        }
    });

    it('answers a request whose chunked body breaks with 400 invalid_request in JSON, as hapi answers it', async () => {

        const request = `POST /api/v1/persons HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${family.key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\nzz\r\n`;
        const answer = parsedAnswer(await rawExchange(server, request));
        expect(answer.statusLine).to.equal('HTTP/1.1 400 Bad Request');
        // hapi's words: answered through the request under way, and so through the service's onPreResponse.
        expect(JSON.parse(answer.body)).to.equal({ statusCode: 400, error: 'Bad Request', message: 'Bad Request', code: 'invalid_request' });
        expect(answer.headers['cache-control']).to.equal('no-store');
        expect(answer.headers.connection).to.equal('close');
    });

    it('writes nothing to a connection that broke, and goes on serving', async () => {

        const errors: string[] = [];
        const seen = (error: NodeJS.ErrnoException) => errors.push(error.code!);
        server.listener.on('clientError', seen);
        try {
            // A client that resets the connection in the middle of its headers.
            await new Promise<void>((resolve) => {

                const socket = Net.connect(Number(server.info.port), '127.0.0.1', () => {

                    socket.write('GET /api/v1/persons HTTP/1.1\r\nHost: 127.0.0.1\r\n');
                    setTimeout(() => socket.resetAndDestroy(), 50);
                });
                socket.on('close', () => resolve());
            });
            await new Promise((resolve) => setTimeout(resolve, 100));
            expect(errors).to.equal(['ECONNRESET']);

            // The same with a socket that throws when written to, so that a write would fail the test.
            const broken = new Net.Socket();
            broken.destroy();
            broken.write = broken.end = () => {

                throw new Error('written to a broken connection');
            };

            server.listener.emit('clientError', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }), broken);
            expect(broken.destroyed).to.be.true();
        }
        finally {
            server.listener.removeListener('clientError', seen);
        }

        expect(parsedAnswer(await rawExchange(server, get('/api/v1/persons'))).statusLine).to.equal('HTTP/1.1 200 OK');
    });
});
