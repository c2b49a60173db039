import Fs from 'fs';
import Http from 'http';
import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { connectedDevice, familyMember } from '../../helpers/devices';
import { freePort } from '../../helpers/ports';
import { testRedisUrl, testVariant } from '../../helpers/server';
import { tcpRelay, type TcpRelay } from '../../helpers/tcp-relay';
import { tusRequest, tusUpload, uploadIdOf, uploadServer } from '../../helpers/uploads';
import { sampleFile } from '../files/fixtures';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

/** Until `check` holds, or `ms` have passed; whether it held. */
async function within(ms: number, check: () => Promise<boolean> | boolean): Promise<boolean> {

    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
        if (await check()) {
            return true;
        }

        await new Promise((resolve) => setTimeout(resolve, 20));
    }

    return check();
}

/**
 * A PATCH over real HTTP that sends `sent` of the `body` it declares, then waits with the connection open: a
 * client whose connection broke mid-body. Resolves once the request is under way; `ended` when the connection goes.
 */
function halfPatch(port: number, id: string, token: string, body: Buffer, sent: number): { ended: Promise<unknown> } {

    const request = Http.request({
        host: '127.0.0.1', port, method: 'PATCH', path: `/messaging/v1/uploads/${id}`,
        headers: { authorization: `Bearer ${token}`, 'tus-resumable': '1.0.0', 'upload-offset': '0', 'content-type': 'application/offset+octet-stream', 'content-length': String(body.length) }
    });
    const ended = new Promise((resolve) => {

        request.on('error', resolve);
        request.on('response', (response) => {

            response.resume();
            response.on('end', resolve);
        });
    });
    request.write(body.subarray(0, sent));
    return { ended };
}

describe(`/messaging/v1/uploads resumed (${testVariant})`, () => {

    let server: Server;
    let relay: TcpRelay;
    let port: number;

    before(async () => {

        port = await freePort();
        relay = await tcpRelay(port);
        ({ server } = await uploadServer({ port, publicPort: relay.port }));
    });

    after(async () => {

        await relay.close();
        await server.stop();
    });

    const filesDir = () => server.app.services.config.filesDir;
    const sizeOnDisk = (id: string) => Fs.statSync(Path.join(filesDir(), 'uploads', id)).size;
    const offsetOf = async (id: string) => (await server.app.services.models.MessagingUpload.findByPk(id))!.offset_bytes;

    it('keeps what arrived before the connection was cut mid-PATCH, and tus-js-client resumes from HEAD\'s Upload-Offset', async () => {

        const user = await familyMember(server, { plan: 'max' });
        const { access_token: token } = await connectedDevice(server, user);
        const file = sampleFile('png', 3 * 2 ** 20);
        const created = await tusRequest(server, token, 'POST', '/messaging/v1/uploads', { 'upload-length': String(file.length) });
        const url = created.headers.location as string;
        expect(url).to.startWith(`http://127.0.0.1:${relay.port}/messaging/v1/uploads/`);
        const id = uploadIdOf(url);

        const half = 2 ** 20 + 12_345;
        const patch = halfPatch(relay.port, id, token, file, half);
        expect(await within(10_000, () => sizeOnDisk(id) === half)).to.be.true();
        await relay.cut();
        await patch.ended;
        expect(await within(10_000, async () => await offsetOf(id) === half)).to.be.true();
        await relay.restore();

        const resumed = await tusUpload(file, token, { uploadUrl: url });
        expect(resumed.error).to.not.exist();
        expect(resumed.responses.map((response) => `${response.method} ${response.status} ${response.offset}`)).to.equal([`HEAD 200 ${half}`, `PATCH 204 ${file.length}`]);
        expect(Fs.readFileSync(Path.join(filesDir(), 'uploads', id)).equals(file)).to.be.true();
        expect((await server.app.services.models.MessagingUpload.findByPk(id))!.media_type).to.equal('image/png');
    });

    describe('on two instances sharing the database and FILES_DIR', () => {

        let second: Server;
        let secondUrl: string;

        before(async () => {

            ({ server: second, baseUrl: secondUrl } = await uploadServer({ shareWith: server }));
        });

        after(() => second.stop());

        it('continues on the second an upload created and begun on the first', async () => {

            const user = await familyMember(server);
            const { access_token: token } = await connectedDevice(server, user);
            const file = sampleFile('jpeg', 60_000);
            const created = await tusRequest(server, token, 'POST', '/messaging/v1/uploads', { 'upload-length': String(file.length), 'content-type': 'application/offset+octet-stream' }, file.subarray(0, 25_000));
            expect(created.headers['upload-offset']).to.equal('25000');
            const id = uploadIdOf(created.headers.location as string);

            const resumed = await tusUpload(file, token, { uploadUrl: `${secondUrl}/messaging/v1/uploads/${id}`, chunkSize: 20_000 });
            expect(resumed.error).to.not.exist();
            expect(resumed.responses.map((response) => `${response.method} ${response.status} ${response.offset}`)).to.equal(['HEAD 200 25000', 'PATCH 204 45000', 'PATCH 204 60000']);
            const head = await tusRequest(server, token, 'HEAD', `/messaging/v1/uploads/${id}`);
            expect(head.headers['upload-offset']).to.equal('60000');
            expect(((await tusRequest(server, token, 'GET', `/messaging/v1/uploads/${id}`)).result as { data: object }).data).to.include({ complete: true, media_type: 'image/jpeg' });
        });

        it('with Redis, asks the first to let go of an upload whose client vanished mid-PATCH, and resumes on the second from what it kept', { skip: !testRedisUrl }, async () => {

            const user = await familyMember(server, { plan: 'max' });
            const { access_token: token } = await connectedDevice(server, user);
            const file = sampleFile('png', 2 ** 20);
            const created = await tusRequest(server, token, 'POST', '/messaging/v1/uploads', { 'upload-length': String(file.length) });
            const id = uploadIdOf(created.headers.location as string);

            // The PATCH holds the upload's lock on the first instance, its connection open and silent.
            const stalled = halfPatch(port, id, token, file, 300_000);
            expect(await within(10_000, () => sizeOnDisk(id) === 300_000)).to.be.true();

            const resumed = await tusUpload(file, token, { uploadUrl: `${secondUrl}/messaging/v1/uploads/${id}` });
            expect(resumed.error).to.not.exist();
            expect(resumed.responses.map((response) => `${response.method} ${response.status} ${response.offset}`)).to.equal(['HEAD 200 300000', `PATCH 204 ${file.length}`]);
            expect(Fs.readFileSync(Path.join(filesDir(), 'uploads', id)).equals(file)).to.be.true();
            await stalled.ended;
        });
    });
});
