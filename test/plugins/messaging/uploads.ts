import Crypto from 'crypto';
import Fs from 'fs';
import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { storageUsed } from '../../../lib/storage-quota';
import { connectedDevice, familyMember } from '../../helpers/devices';
import { testVariant } from '../../helpers/server';
import { tusRequest, tusUpload, uploadIdOf, uploadMetadata, uploadServer } from '../../helpers/uploads';
import { sampleFile, sampleText } from '../files/fixtures';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe(`/messaging/v1/uploads: tus resumable uploads (${testVariant})`, () => {

    let server: Server;
    let baseUrl: string;
    let endpoint: string;

    before(async () => {

        ({ server, baseUrl } = await uploadServer());
        endpoint = `${baseUrl}/messaging/v1/uploads`;
    });

    after(() => server.stop());

    const bytesOf = (id: string) => Fs.readFileSync(Path.join(server.app.services.config.filesDir, 'uploads', id));
    const hasBytes = (id: string) => Fs.existsSync(Path.join(server.app.services.config.filesDir, 'uploads', id));
    const rowOf = async (id: string) => (await server.app.services.models.MessagingUpload.findByPk(id))?.get({ plain: true }) as Record<string, unknown> | undefined ?? null;

    async function device(options: { plan?: string; scope?: string } = {}) {

        const user = await familyMember(server, { plan: options.plan });
        const tokens = await connectedDevice(server, user, options.scope ? { scope: options.scope } : {});
        return { user, token: tokens.access_token };
    }

    /** POST /uploads through inject: the upload's id, or the refusal. */
    async function created(token: string, length: number, metadata = uploadMetadata('photo.png', 'image/png')) {

        const response = await tusRequest(server, token, 'POST', '/messaging/v1/uploads', { 'upload-length': String(length), 'upload-metadata': metadata });
        expect(response.statusCode, JSON.stringify(response.result)).to.equal(201);
        return uploadIdOf(response.headers.location as string);
    }

    const patch = (token: string, id: string, offset: number, body: Buffer, headers: Record<string, string> = {}) => tusRequest(server, token, 'PATCH', `/messaging/v1/uploads/${id}`,
        { 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream', ...headers }, body);

    it('takes a whole file from tus-js-client in several PATCHes, and recognises it by its content', async () => {

        const { user, token } = await device();
        const file = sampleFile('png', 50_000);
        const outcome = await tusUpload(file, token, { endpoint, chunkSize: 16_384, metadata: { filename: 'C:\\Users\\ann\\holiday.png', filetype: 'image/png' } });
        expect(outcome.error).to.not.exist();
        expect(outcome.url).to.match(new RegExp(`^${endpoint}/upl_[0-9A-Za-z]{20}$`));
        expect(outcome.responses.map((response) => `${response.method} ${response.status} ${response.offset ?? ''}`)).to.equal([
            'POST 201 ', 'PATCH 204 16384', 'PATCH 204 32768', 'PATCH 204 49152', 'PATCH 204 50000'
        ]);

        const id = uploadIdOf(outcome.url!);
        expect(bytesOf(id).equals(file)).to.be.true();
        const row = (await rowOf(id))!;
        expect(row).to.include({ family_long_id: user.family_long_id, user_id: user.id, file_name: 'holiday.png', declared_type: 'image/png', length_bytes: 50_000, offset_bytes: 50_000, media_type: 'image/png', message_id: null });
        expect(row.grant_id).to.match(/^dev_/);
        expect(row.completed_at).to.be.a.date();

        const state = await tusRequest(server, token, 'GET', `/messaging/v1/uploads/${id}`);
        expect((state.result as { data: object }).data).to.include({ id, file_name: 'holiday.png', size_bytes: 50_000, offset_bytes: 50_000, complete: true, media_type: 'image/png', attached: false });

        const head = await tusRequest(server, token, 'HEAD', `/messaging/v1/uploads/${id}`);
        expect(head.statusCode).to.equal(200);
        expect(head.headers).to.include({ 'upload-offset': '50000', 'upload-length': '50000', 'tus-resumable': '1.0.0', 'cache-control': 'no-store' });
        expect(head.headers['upload-expires']).to.not.exist();             // finished: no longer expires as tus says
    });

    it('takes a file in its creation request (creation-with-upload), announcing Upload-Expires while unfinished', async () => {

        const { token } = await device();
        const file = sampleFile('jpeg', 3000);
        const outcome = await tusUpload(file, token, { endpoint, uploadDataDuringCreation: true, metadata: { filename: 'a.jpg' } });
        expect(outcome.error).to.not.exist();
        expect(outcome.responses.map((response) => `${response.method} ${response.status} ${response.offset}`)).to.equal(['POST 201 3000']);
        expect((await rowOf(uploadIdOf(outcome.url!)))!.media_type).to.equal('image/jpeg');

        const partial = await tusRequest(server, token, 'POST', '/messaging/v1/uploads', { 'upload-length': '6000', 'content-type': 'application/offset+octet-stream' }, file);
        expect(partial.statusCode).to.equal(201);
        expect(partial.headers['upload-offset']).to.equal('3000');
        const expires = Date.parse(partial.headers['upload-expires'] as string);
        expect(expires).to.be.within(Date.now() + 1439 * 60_000, Date.now() + 1440 * 60_000);
        expect((await rowOf(uploadIdOf(partial.headers.location as string)))).to.include({ file_name: 'attachment', offset_bytes: 3000, completed_at: null });
    });

    it('answers OPTIONS with the version, extensions, the plan\'s largest attachment and sha256', async () => {

        const { token } = await device({ plan: 'lite' });
        const response = await tusRequest(server, token, 'OPTIONS', '/messaging/v1/uploads');
        expect(response.statusCode).to.equal(204);
        expect(response.headers).to.include({
            'tus-version': '1.0.0',
            'tus-extension': 'creation,creation-with-upload,expiration,termination,checksum',
            'tus-max-size': String(5 * 2 ** 20),
            'tus-checksum-algorithm': 'sha256'
        });
    });

    it('keeps a body whose Upload-Checksum matches, and refuses one that does not with 460 checksum_mismatch, keeping none of it', async () => {

        const { token } = await device();
        const file = sampleFile('png', 2000);
        const id = await created(token, 2000);
        const sha256 = (data: Buffer) => `sha256 ${Crypto.createHash('sha256').update(data).digest('base64')}`;

        const wrong = await patch(token, id, 0, file.subarray(0, 1000), { 'upload-checksum': sha256(file.subarray(0, 999)) });
        expect(wrong.statusCode).to.equal(460);
        expect(wrong.result).to.include({ code: 'checksum_mismatch' });
        expect(wrong.headers['tus-resumable']).to.equal('1.0.0');
        expect((await tusRequest(server, token, 'HEAD', `/messaging/v1/uploads/${id}`)).headers['upload-offset']).to.equal('0');
        expect(bytesOf(id).length).to.equal(0);

        const right = await patch(token, id, 0, file.subarray(0, 1000), { 'upload-checksum': sha256(file.subarray(0, 1000)) });
        expect(right.statusCode).to.equal(204);
        expect(right.headers['upload-offset']).to.equal('1000');

        for (const header of ['md5 1B2M2Y8AsgTpgAmY7PhCfg==', 'sha256 not-base64', 'sha256']) {
            const refused = await patch(token, id, 1000, file.subarray(1000), { 'upload-checksum': header });
            expect(refused.statusCode, header).to.equal(400);
            expect(refused.result).to.include({ code: 'invalid_request' });
        }

        const rest = await patch(token, id, 1000, file.subarray(1000), { 'upload-checksum': sha256(file.subarray(1000)) });
        expect(rest.statusCode).to.equal(204);
        expect(bytesOf(id).equals(file)).to.be.true();
    });

    it('answers the protocol\'s errors with codes: an offset elsewhere, a body past the length, a missing Tus-Resumable', async () => {

        const { token } = await device();
        const id = await created(token, 100);
        expect((await patch(token, id, 10, Buffer.alloc(10))).result).to.include({ statusCode: 409, code: 'conflict' });
        expect((await patch(token, id, 0, Buffer.alloc(101))).result).to.include({ statusCode: 413, code: 'too_large' });
        const noVersion = await server.inject({ method: 'HEAD', url: `/messaging/v1/uploads/${id}`, headers: { authorization: `Bearer ${token}` } });
        expect(noVersion.statusCode).to.equal(412);
        const deferred = await tusRequest(server, token, 'POST', '/messaging/v1/uploads', { 'upload-defer-length': '1' });
        expect(deferred.result).to.include({ statusCode: 400, code: 'invalid_request' });
        expect((await tusRequest(server, token, 'HEAD', '/messaging/v1/uploads/nonsense')).statusCode).to.equal(404);
    });

    it('terminates an upload (DELETE): its bytes and its share of the quota go', async () => {

        const { user, token } = await device();
        const id = await created(token, 40_000);
        expect(await storageUsed(server.app.services.models, user.family_long_id!)).to.equal(40_000);
        const outcome = await tusRequest(server, token, 'DELETE', `/messaging/v1/uploads/${id}`);
        expect(outcome.statusCode).to.equal(204);
        expect(hasBytes(id)).to.be.false();
        expect(await rowOf(id)).to.be.null();
        expect(await storageUsed(server.app.services.models, user.family_long_id!)).to.equal(0);
        expect((await tusRequest(server, token, 'HEAD', `/messaging/v1/uploads/${id}`)).statusCode).to.equal(404);
    });

    it('refuses an expired upload with 410 upload_expired, and the schedule removes it, bytes and row', async () => {

        const { user, token } = await device();
        const id = await created(token, 1000);
        const kept = await created(token, 1000);
        await server.app.services.models.MessagingUpload.update({ expires_at: new Date(Date.now() - 1000) }, { where: { id } });

        const late = await patch(token, id, 0, sampleFile('png', 1000));
        expect(late.result).to.include({ statusCode: 410, code: 'upload_expired' });

        // The clean-up runs every second here (uploadPolicies()).
        const deadline = Date.now() + 5000;
        while (await rowOf(id) && Date.now() < deadline) {
            await new Promise((resolve) => setTimeout(resolve, 100));
        }

        expect(await rowOf(id)).to.be.null();
        expect(hasBytes(id)).to.be.false();
        expect(await rowOf(kept)).to.exist();
        expect(await storageUsed(server.app.services.models, user.family_long_id!)).to.equal(1000);
    });

    it('removes a finished upload no message took once unattached_minutes have passed, and keeps an attached one', async () => {

        const { token } = await device();
        const finished = uploadIdOf((await tusUpload(sampleFile('png', 500), token, { endpoint })).url!);
        const attached = uploadIdOf((await tusUpload(sampleFile('png', 500), token, { endpoint })).url!);
        const models = server.app.services.models;
        await models.MessagingUpload.update({ expires_at: new Date(Date.now() - 1000) }, { where: { id: [finished, attached] } });
        await models.MessagingUpload.update({ message_id: 'msg_test' }, { where: { id: attached } });

        expect(await server.plugins.messaging.deleteExpiredUploads()).to.be.at.least(1);
        expect(await rowOf(finished)).to.be.null();
        expect(hasBytes(finished)).to.be.false();
        expect(await rowOf(attached)).to.exist();
        expect(hasBytes(attached)).to.be.true();
    });

    it('refuses a file larger than the plan\'s attachments with 413 too_large, before creating anything', async () => {

        const { user, token } = await device();
        const response = await tusRequest(server, token, 'POST', '/messaging/v1/uploads', { 'upload-length': '80001' });
        expect(response.result).to.include({ statusCode: 413, code: 'too_large', message: 'The file is 80001 bytes (78.1 KiB); messages on the Family plan carry files up to 80000 bytes (78.1 KiB).' });
        expect(await server.app.services.models.MessagingUpload.count({ where: { user_id: user.id } })).to.equal(0);
    });

    it('refuses a file whose content the plan does not allow, whatever its name says, with 415, and removes it', async () => {

        const { token } = await device({ plan: 'lite' });
        const outcome = await tusUpload(sampleText(800), token, { endpoint, metadata: { filename: 'photo.png', filetype: 'image/png' } });
        expect(outcome.error).to.exist();
        const last = outcome.responses.at(-1)!;
        expect(last).to.include({ method: 'PATCH', status: 415 });
        expect(JSON.parse(outcome.error!.originalResponse!.getBody())).to.include({
            code: 'unsupported_media_type',
            message: 'The file\'s content looks like text/plain; messages on the Lite plan may carry image/jpeg, image/png, image/gif, image/webp. The upload was removed.'
        });
        const id = uploadIdOf(outcome.url!);
        expect(await rowOf(id)).to.be.null();
        expect(hasBytes(id)).to.be.false();

        const renamed = await tusUpload(sampleFile('gif', 800), token, { endpoint, metadata: { filename: 'notes.txt', filetype: 'text/plain' } });
        expect(renamed.error).to.not.exist();
        expect(await rowOf(uploadIdOf(renamed.url!))).to.include({ file_name: 'notes.txt', media_type: 'image/gif' });
    });

    it('answers 404 for another user\'s or another family\'s upload, on every method, and for none', async () => {

        const owner = await device();
        const id = await created(owner.token, 1000);
        const sameFamily = await connectedDevice(server, await server.app.services.models.User.create({
            id: `usr_${Crypto.randomBytes(8).toString('hex')}`, email: `${Crypto.randomBytes(6).toString('hex')}@example.com`,
            password_hash: 'x'.repeat(60), family_long_id: owner.user.family_long_id, role: 'member'
        }));
        const otherFamily = await device();
        for (const token of [sameFamily.access_token, otherFamily.token]) {
            for (const method of ['GET', 'HEAD', 'DELETE']) {
                const response = await tusRequest(server, token, method, `/messaging/v1/uploads/${id}`);
                expect(response.statusCode, method).to.equal(404);
            }

            expect((await patch(token, id, 0, Buffer.alloc(10))).result).to.include({ statusCode: 404, code: 'not_found' });
        }

        expect((await rowOf(id))!.offset_bytes).to.equal(0);
        expect((await tusRequest(server, owner.token, 'HEAD', `/messaging/v1/uploads/${id}`)).statusCode).to.equal(200);
        expect((await tusRequest(server, owner.token, 'GET', '/messaging/v1/uploads/upl_AAAAAAAAAAAAAAAAAAAA')).result).to.include({ statusCode: 404, code: 'not_found' });
    });

    it('refuses a token without the files:write scope with 403 token_scope', async () => {

        const { token } = await device({ scope: 'profile messages:write' });
        const response = await tusRequest(server, token, 'POST', '/messaging/v1/uploads', { 'upload-length': '10' });
        expect(response.result).to.include({ statusCode: 403, code: 'token_scope' });
    });

    it('refuses an attached upload\'s termination with 409 conflict', async () => {

        const { token } = await device();
        const id = uploadIdOf((await tusUpload(sampleFile('png', 500), token, { endpoint })).url!);
        await server.app.services.models.MessagingUpload.update({ message_id: 'msg_test' }, { where: { id } });
        expect((await tusRequest(server, token, 'DELETE', `/messaging/v1/uploads/${id}`)).result).to.include({ statusCode: 409, code: 'conflict' });
        expect(hasBytes(id)).to.be.true();
    });
});
