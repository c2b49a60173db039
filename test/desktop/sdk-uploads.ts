import Crypto from 'crypto';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';
import { ApiError, newIdempotencyKey, uploadFile, type MessagingClient, type UploadSource } from 'family-records-desktop';

import { messagingFamily } from '../helpers/messaging';
import { testVariant } from '../helpers/server';
import { uploadServer } from '../helpers/uploads';
import { sdkClient } from './sdk-fixtures';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

/** A UTF-8 text file of `size` bytes (a type every plan that has files allows). */
function textFile(name: string, size: number): UploadSource & { bytes: Buffer } {

    const bytes = Buffer.from('Family notes, line by line.\n'.repeat(Math.ceil(size / 28)).slice(0, size));
    return { name, size, type: 'text/plain', bytes, read: () => Promise.resolve(bytes) };
}

describe(`the desktop SDK's uploads with tus, resumable across restarts (${testVariant})`, () => {

    let server: Server;
    let baseUrl: string;
    const patches: Array<{ path: string; offset: number }> = [];

    before(async () => {

        // The upload policies: attachments of at most 80,000 bytes.
        ({ server, baseUrl } = await uploadServer());
        server.events.on('response', (request) => {

            if (request.method === 'patch' && request.path.startsWith('/messaging/v1/uploads/')) {
                patches.push({ path: request.path, offset: Number(request.headers['upload-offset']) });
            }
        });
    });

    after(() => server.stop());

    async function pair(): Promise<{ asAnn: MessagingClient; conversationId: string; storage: Awaited<ReturnType<typeof sdkClient>>['storage'] }> {

        const { users } = await messagingFamily(server, 2);
        const { client: asAnn, storage } = await sdkClient(server, baseUrl, users[0]);
        const conversation = await asAnn.startDirect(users[1].id);
        return { asAnn, conversationId: conversation.id, storage };
    }

    const idOf = (url: string) => url.slice(url.lastIndexOf('/') + 1);

    it('creates the upload and reports its url before any byte goes, then sends it; the message carries the file', async () => {

        const { asAnn, conversationId } = await pair();
        const file = textFile('notes.txt', 30_000);
        const created: Array<{ url: string; offset: number }> = [];
        let lastProgress = 0;
        const uploaded = await uploadFile(asAnn, file, {
            async onCreated(url) {

                created.push({ url, offset: (await asAnn.upload(idOf(url))).offset_bytes });
            },
            onProgress: (sent) => (lastProgress = sent)
        });
        expect(created).to.equal([{ url: uploaded.url, offset: 0 }]);
        expect(uploaded.url).to.equal(`${baseUrl}/messaging/v1/uploads/${uploaded.uploadId}`);
        expect(lastProgress).to.equal(30_000);
        expect(await asAnn.upload(uploaded.uploadId)).to.include({ complete: true, size_bytes: 30_000, file_name: 'notes.txt', attached: false });

        const message = await asAnn.send(conversationId, { body: 'The notes', upload_ids: [uploaded.uploadId] }, newIdempotencyKey());
        expect(message.attachments).to.equal([{ upload_id: uploaded.uploadId, file_name: 'notes.txt', media_type: 'text/plain', size_bytes: 30_000 }]);
        const download = await asAnn.downloadAttachment(message.id, uploaded.uploadId);
        expect(download.fileName).to.equal('notes.txt');
        expect(download.mediaType).to.startWith('text/plain');
        expect(download.body.equals(file.bytes)).to.be.true();
    });

    it('resumes an upload stopped part-way from its url in a new call, sending only the rest (refreshing a token refused on the way)', async () => {

        const { asAnn, conversationId, storage } = await pair();
        const file = textFile('diary.txt', 50_000);
        const controller = new AbortController();
        let url: string | undefined;
        const stopped = uploadFile(asAnn, file, {
            chunkSize: 10_000,
            signal: controller.signal,
            onCreated: (created) => Promise.resolve(void (url = created)),
            onProgress: (sent) => sent > 25_000 && controller.abort()
        });
        await expect(stopped).to.reject(/aborted/);
        const kept = (await asAnn.upload(idOf(url!))).offset_bytes;
        expect(kept).to.be.within(20_000, 49_999);

        // A token the service no longer takes, that still looks fresh: the resume refreshes it and goes on with the same upload.
        await storage.write({ ...storage.tokens!, access_token: `frd_${'x'.repeat(36)}` });
        patches.length = 0;
        const progress: number[] = [];
        const resumed = await uploadFile(asAnn, file, {
            resumeUrl: url,
            onCreated: () => Promise.reject(new Error('a resumed upload exists already')),
            onProgress: (sent) => progress.push(sent)
        });
        expect(resumed.url).to.equal(url!);
        expect(storage.tokens!.access_token).to.not.equal(`frd_${'x'.repeat(36)}`);
        expect(progress[0]).to.be.at.least(kept);
        expect(patches.map((patch) => patch.offset)).to.equal([kept]);
        expect(await asAnn.upload(resumed.uploadId)).to.include({ complete: true, offset_bytes: 50_000 });

        const message = await asAnn.send(conversationId, { upload_ids: [resumed.uploadId] }, newIdempotencyKey());
        expect((await asAnn.downloadAttachment(message.id, resumed.uploadId)).body.equals(file.bytes)).to.be.true();
    });

    it('starts anew from an upload url the service does not know (expired, removed), reporting the new url', async () => {

        const { asAnn } = await pair();
        const stale = `${baseUrl}/messaging/v1/uploads/upl_${Crypto.randomBytes(8).toString('hex')}`;
        const created: string[] = [];
        const uploaded = await uploadFile(asAnn, textFile('again.txt', 1_000), { resumeUrl: stale, onCreated: (url) => Promise.resolve(void created.push(url)) });
        expect(created).to.equal([uploaded.url]);
        expect(uploaded.url).to.not.equal(stale);
        expect((await asAnn.upload(uploaded.uploadId)).complete).to.be.true();
    });

    it('answers ApiError for a file too large (413) or of a type the plan refuses (415)', async () => {

        const { asAnn } = await pair();
        const noCallback = () => Promise.resolve();
        const tooLarge = await expect(uploadFile(asAnn, textFile('huge.txt', 90_000), { onCreated: noCallback })).to.reject(ApiError);
        expect(tooLarge).to.include({ status: 413, code: 'too_large' });

        const bytes = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46]), Crypto.randomBytes(2_000)]);
        const program = { name: 'run.bin', size: bytes.length, read: () => Promise.resolve(bytes) };
        const refused = await expect(uploadFile(asAnn, program, { onCreated: noCallback })).to.reject(ApiError);
        expect(refused).to.include({ status: 415, code: 'unsupported_media_type' });
    });
});
