import type { Server } from '@hapi/hapi';
import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import { derivedKey, masterSecret } from '../../../lib/secrets';
import { fileToken } from '../../../plugins/files/signed-urls';
import { familyWithKey, testServer, type FamilyFixture } from '../../helpers/server';
import { bodyOf, dataOf, expectError } from '../records/fixtures';
import { pathOf, sampleFile, sampleText, sha256Of, upload } from './fixtures';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('GET /files/{token}', () => {

    let server: Server;

    before(async () => {

        server = await testServer();
        await server.start();
    });

    after(async () => {

        await server.stop();
    });

    /** A gallery item with `file`, and the path of its signed URL. */
    async function galleryItem(family: FamilyFixture, file: Buffer, fields: Record<string, unknown> = {}): Promise<{ id: string; path: string }> {

        const created = dataOf(await upload(family, 'gallery', file, fields), 201);
        return { id: created.id, path: pathOf(created.url) };
    }

    /** A token signed with this deployment's key, as the server would sign it. */
    async function signedToken(grant: { resource: string; id: string; storageKey: string; expiresAt: number }): Promise<string> {

        const key = derivedKey(await masterSecret(server.app.services.models), 'signed-file-urls');
        return fileToken(key, grant);
    }

    const storedRow = (id: string) => server.app.services.models.records.gallery.findByPk(id);

    it('names a download by the rules of an upload\'s name, also a file stored before them', async () => {

        const family = await familyWithKey(server);
        const cases: [string, string, string][] = [
            ['photo.jpeg', 'image/png', 'photo.jpeg.png'],             // not the extension of its type
            ['CON.png', 'image/png', '_CON.png'],                      // a Windows device name
            [`${'ö'.repeat(200)}.png`, 'image/png', `${'ö'.repeat(125)}.png`],     // 404 bytes: cut to 255
            ['Wedding.png', 'image/png', 'Wedding.png'],
            ['old-scan', 'image/x-retired', 'old-scan']               // a type the policy no longer declares: nothing to append
        ];

        for (const [stored, mediaType, downloaded] of cases) {
            const { id, path } = await galleryItem(family, sampleFile('png'));
            await server.app.services.models.records.gallery.update({ original_name: stored, media_type: mediaType }, { where: { id } });
            const response = await server.inject(path);
            expect(response.statusCode, stored).to.equal(200);
            expect(response.headers['content-type'], stored).to.equal(mediaType);
            expect(response.headers['content-disposition'] as string, stored).to.endWith(`filename*=UTF-8''${encodeURIComponent(downloaded)}`);
        }
    });

    it('round-trips a file byte for byte over HTTP: upload, then download through the signed URL', async () => {

        const family = await familyWithKey(server);
        const file = sampleFile('jpeg', 3 * 1024 * 1024 + 7);

        const uploaded = await fetch(`${server.info.uri}/api/v1/gallery`, {
            method: 'POST',
            headers: { authorization: `Bearer ${family.key}`, 'content-type': 'application/json' },
            body: JSON.stringify({ title: 'Wedding', original_name: 'Hochzeit Zoë.jpg', file_base64: file.toString('base64') })
        });
        expect(uploaded.status).to.equal(201);
        const created = ((await uploaded.json()) as { data: { url: string } }).data;

        const downloaded = await fetch(`${server.info.uri}${pathOf(created.url)}`);

        expect(downloaded.status).to.equal(200);
        expect(Buffer.from(await downloaded.arrayBuffer()).equals(file)).to.be.true();
        expect(downloaded.headers.get('content-type')).to.equal('image/jpeg');
        expect(downloaded.headers.get('content-length')).to.equal(String(file.length));
        expect(downloaded.headers.get('accept-ranges')).to.equal('bytes');
        expect(downloaded.headers.get('etag')).to.equal(`"${sha256Of(file)}"`);
        expect(downloaded.headers.get('x-content-type-options')).to.equal('nosniff');
        expect(downloaded.headers.get('content-security-policy')).to.equal('default-src \'none\'; style-src \'unsafe-inline\'; sandbox');
        expect(downloaded.headers.get('content-disposition')).to.equal('inline; filename="Hochzeit Zoe.jpg"; filename*=UTF-8\'\'Hochzeit%20Zo%C3%AB.jpg');
        const maxAge = Number(/^private, max-age=(\d+)$/.exec(downloaded.headers.get('cache-control')!)![1]);
        expect(maxAge).to.be.within(590, 900);          // linkExpiry(): two thirds of the lifetime at least
    });

    it('serves one byte range: the first bytes, a suffix, an open end, an end past the file (206)', async () => {

        const family = await familyWithKey(server);
        const file = sampleFile('png', 1000);
        const { path } = await galleryItem(family, file);
        const ranges: [string, number, number][] = [['bytes=0-9', 0, 9], ['bytes=-100', 900, 999], ['bytes=990-', 990, 999], ['bytes=500-5000', 500, 999], ['bytes=-5000', 0, 999], ['Bytes=0-9', 0, 9], ['BYTES=-100', 900, 999]];

        for (const [range, first, last] of ranges) {
            const response = await server.inject({ url: path, headers: { range } });
            expect(response.statusCode, range).to.equal(206);
            expect(response.rawPayload).to.equal(file.subarray(first, last + 1));
            expect(response.headers['content-range']).to.equal(`bytes ${first}-${last}/1000`);
            expect(response.headers['content-length']).to.equal(last - first + 1);
            expect(response.headers.etag).to.equal(`"${sha256Of(file)}"`);
        }
    });

    it('answers 416 range_not_satisfiable for a range that starts past the end', async () => {

        const family = await familyWithKey(server);
        const { path } = await galleryItem(family, sampleFile('png', 1000));

        for (const range of ['bytes=1000-', 'bytes=5000-6000', 'bytes=-0', 'Bytes=1000-']) {
            const response = await server.inject({ url: path, headers: { range } });
            expectError(response, 416, 'range_not_satisfiable', '1000 bytes');
            expect(response.headers['content-range']).to.equal('bytes */1000');
        }
    });

    it('sends the whole file for several ranges, a malformed range, or an If-Range naming another version', async () => {

        const family = await familyWithKey(server);
        const file = sampleFile('png', 1000);
        const { path } = await galleryItem(family, file);

        for (const headers of [{ range: 'bytes=0-1,5-6' }, { range: 'bytes=9-2' }, { range: 'pages=1' }, { range: 'bytes=0-9', 'if-range': '"an-older-version"' }]) {
            const response = await server.inject({ url: path, headers });
            expect(response.statusCode).to.equal(200);
            expect(response.rawPayload).to.equal(file);
        }

        const current = await server.inject({ url: path, headers: { range: 'bytes=0-9', 'if-range': `"${sha256Of(file)}"` } });
        expect(current.statusCode).to.equal(206);
    });

    it('answers 304 to If-None-Match with its ETag, and 200 to another', async () => {

        const family = await familyWithKey(server);
        const file = sampleFile('png', 500);
        const { path } = await galleryItem(family, file);

        const unchanged = await server.inject({ url: path, headers: { 'if-none-match': `"something-else", "${sha256Of(file)}"` } });
        expect(unchanged.statusCode).to.equal(304);
        expect(unchanged.rawPayload.length).to.equal(0);
        expect(unchanged.headers.etag).to.equal(`"${sha256Of(file)}"`);
        expect(unchanged.headers['cache-control']).to.match(/^private, max-age=\d+$/);

        const changed = await server.inject({ url: path, headers: { 'if-none-match': '"something-else"' } });
        expect(changed.statusCode).to.equal(200);
        expect(changed.rawPayload).to.equal(file);
    });

    it('answers 304 to If-None-Match: * (RFC 9110 §13.1.2: the file exists), with its ETag, also when a Range is asked for', async () => {

        const family = await familyWithKey(server);
        const file = sampleFile('png', 500);
        const { id, path } = await galleryItem(family, file);

        for (const headers of [{ 'if-none-match': '*' }, { 'if-none-match': '*', range: 'bytes=0-9' }]) {
            const unchanged = await server.inject({ url: path, headers });
            expect(unchanged.statusCode).to.equal(304);
            expect(unchanged.rawPayload.length).to.equal(0);
            expect(unchanged.headers.etag).to.equal(`"${sha256Of(file)}"`);
            expect(unchanged.headers['cache-control']).to.match(/^private, max-age=\d+$/);
        }

        dataOf(await family.inject('DELETE', `/api/v1/gallery/${id}`));
        expectError(await server.inject({ url: path, headers: { 'if-none-match': '*' } }), 404, 'not_found');
    });

    it('says when the file was uploaded (Last-Modified), and answers If-Modified-Since and an If-Range of that date', async () => {

        const family = await familyWithKey(server);
        const file = sampleFile('png', 500);
        const { id, path } = await galleryItem(family, file);
        const uploadedAt = ((await storedRow(id))!.get('created_at') as Date).toUTCString();
        const dayAfter = new Date(Date.parse(uploadedAt) + 86_400_000).toUTCString();
        const secondBefore = new Date(Date.parse(uploadedAt) - 1000).toUTCString();

        const whole = await server.inject(path);
        expect(whole.headers['last-modified']).to.equal(uploadedAt);

        for (const since of [uploadedAt, dayAfter]) {
            const unchanged = await server.inject({ url: path, headers: { 'if-modified-since': since } });
            expect(unchanged.statusCode, since).to.equal(304);
            expect(unchanged.rawPayload.length).to.equal(0);
            expect(unchanged.headers['last-modified']).to.equal(uploadedAt);
            expect(unchanged.headers['cache-control']).to.match(/^private, max-age=\d+$/);
        }

        expect((await server.inject({ url: path, headers: { 'if-modified-since': secondBefore } })).statusCode).to.equal(200);
        // If-None-Match decides when both are sent (RFC 9110 §13.1.3).
        expect((await server.inject({ url: path, headers: { 'if-modified-since': dayAfter, 'if-none-match': '"another"' } })).statusCode).to.equal(200);

        const resumed = await server.inject({ url: path, headers: { range: 'bytes=100-', 'if-range': uploadedAt } });
        expect(resumed.statusCode).to.equal(206);
        expect(resumed.rawPayload).to.equal(file.subarray(100));
        const restarted = await server.inject({ url: path, headers: { range: 'bytes=100-', 'if-range': secondBefore } });
        expect(restarted.statusCode).to.equal(200);
        expect(restarted.rawPayload).to.equal(file);
    });

    it('answers If-Match: its ETag or * serve the file, another tag or a weak one is 412 precondition_failed, a malformed one 400', async () => {

        const family = await familyWithKey(server);
        const file = sampleFile('png', 500);
        const { path } = await galleryItem(family, file);
        const etag = `"${sha256Of(file)}"`;

        for (const ifMatch of [etag, '*', `"another", ${etag}`]) {
            const served = await server.inject({ url: path, headers: { 'if-match': ifMatch } });
            expect(served.statusCode, ifMatch).to.equal(200);
            expect(served.rawPayload).to.equal(file);
        }

        // If-Match comes before If-None-Match and Range (RFC 9110 §13.2.2): a 304 or a range only when it holds.
        expect((await server.inject({ url: path, headers: { 'if-match': etag, 'if-none-match': etag } })).statusCode).to.equal(304);
        expect((await server.inject({ url: path, headers: { 'if-match': etag, range: 'bytes=0-9' } })).statusCode).to.equal(206);
        for (const headers of [{ 'if-match': '"another"' }, { 'if-match': `W/${etag}` }, { 'if-match': '"another"', 'if-none-match': etag }, { 'if-match': '"another"', range: 'bytes=0-9' }]) {
            expectError(await server.inject({ url: path, headers }), 412, 'precondition_failed', `If-Match does not name the current ETag, ${etag}`);
        }

        expectError(await server.inject({ url: path, headers: { 'if-match': sha256Of(file) } }), 400, 'invalid_request', 'If-Match');
    });

    it('takes in If-Match the ETag of a compressed answer (hapi appends -gzip to it), as it does in If-None-Match', async () => {

        const family = await familyWithKey(server);
        const text = sampleText(5000);
        const created = dataOf(await upload(family, 'documents', text, { original_name: 'notes.txt' }), 201);
        const path = pathOf((await family.inject('GET', `/api/v1/documents/${created.id}/file`)).headers.location as string);

        const compressed = await server.inject({ url: path, headers: { 'accept-encoding': 'gzip' } });
        expect(compressed.headers['content-encoding']).to.equal('gzip');
        const etag = compressed.headers.etag as string;
        expect(etag).to.equal(`"${sha256Of(text)}-gzip"`);

        for (const encoding of ['gzip', 'identity']) {
            const served = await server.inject({ url: path, headers: { 'accept-encoding': encoding, 'if-match': etag } });
            expect(served.statusCode, encoding).to.equal(200);
        }

        expect((await server.inject({ url: path, headers: { 'accept-encoding': 'gzip', 'if-none-match': etag } })).statusCode).to.equal(304);
        expectError(await server.inject({ url: path, headers: { 'if-match': `"${sha256Of(sampleText(6000))}-gzip"` } }), 412, 'precondition_failed', 'If-Match does not name the current ETag');
    });

    it('answers If-Unmodified-Since: 412 precondition_failed for a date before the upload, the file for one since; If-Match decides when both are sent', async () => {

        const family = await familyWithKey(server);
        const file = sampleFile('png', 500);
        const { id, path } = await galleryItem(family, file);
        const uploadedAt = ((await storedRow(id))!.get('created_at') as Date).toUTCString();
        const secondBefore = new Date(Date.parse(uploadedAt) - 1000).toUTCString();

        for (const since of [uploadedAt, new Date(Date.now() + 60_000).toUTCString(), 'not a date']) {
            expect((await server.inject({ url: path, headers: { 'if-unmodified-since': since } })).statusCode, since).to.equal(200);
        }

        expectError(await server.inject({ url: path, headers: { 'if-unmodified-since': secondBefore } }), 412, 'precondition_failed', `before the last change, ${uploadedAt}`);
        expect((await server.inject({ url: path, headers: { 'if-unmodified-since': secondBefore, 'if-match': '*' } })).statusCode).to.equal(200);
    });

    it('refuses a query with 400 invalid_request, as every route of the API refuses parameters it does not take', async () => {

        const family = await familyWithKey(server);
        const { path } = await galleryItem(family, sampleFile('png'));

        expectError(await server.inject(`${path}?download=1`), 400, 'invalid_request', '"download" is not allowed');
        expect((await server.inject(path)).statusCode).to.equal(200);
    });

    it('refuses a tampered URL with 403 invalid_signature', async () => {

        const family = await familyWithKey(server);
        const mine = await galleryItem(family, sampleFile('png'));
        const other = await galleryItem(family, sampleFile('png'));
        const [payload, signature] = mine.path.slice('/files/'.length).split('.');
        const [resource, id, storageKey, expiresAt] = JSON.parse(Buffer.from(payload, 'base64url').toString());
        const reencode = (grant: unknown[]) => Buffer.from(JSON.stringify(grant)).toString('base64url');
        const otherPayload = other.path.slice('/files/'.length).split('.')[0];
        const flipped = `${signature.slice(0, 10)}${signature[10] === 'A' ? 'B' : 'A'}${signature.slice(11)}`;

        const tampered = [
            `${reencode([resource, id, storageKey, expiresAt + 3600])}.${signature}`,       // a longer life
            `${reencode(['documents', id, storageKey, expiresAt])}.${signature}`,
            `${otherPayload}.${signature}`,                                                // another file
            `${payload}.${flipped}`,
            `${payload}.${signature}=`,
            `${payload}.${signature}.${signature}`,
            payload,
            'not-a-token'
        ];

        for (const token of tampered) {
            expectError(await server.inject(`/files/${token}`), 403, 'invalid_signature');
        }

        const foreignKey = fileToken(Buffer.alloc(32, 7), { resource, id, storageKey, expiresAt });
        expectError(await server.inject(`/files/${foreignKey}`), 403, 'invalid_signature');
    });

    it('refuses an expired URL with 403 url_expired', async () => {

        const family = await familyWithKey(server);
        const { id } = await galleryItem(family, sampleFile('png'));
        const row = await storedRow(id);
        const grant = { resource: 'gallery', id, storageKey: row!.get('storage_key') as string };

        const expired = await signedToken({ ...grant, expiresAt: Math.floor(Date.now() / 1000) - 1 });
        const response = await server.inject(`/files/${expired}`);
        expectError(response, 403, 'url_expired');
        expect(bodyOf(response).message).to.contain('ask the API for a fresh one');

        const valid = await signedToken({ ...grant, expiresAt: Math.floor(Date.now() / 1000) + 30 });
        expect((await server.inject(`/files/${valid}`)).statusCode).to.equal(200);
    });

    it('answers 404 once the record is deleted, though its URL has not expired', async () => {

        const family = await familyWithKey(server);
        const { id, path } = await galleryItem(family, sampleFile('png'));

        dataOf(await family.inject('DELETE', `/api/v1/gallery/${id}`));

        expectError(await server.inject(path), 404, 'not_found');
    });

    it('serves HEAD with the headers and no body', async () => {

        const family = await familyWithKey(server);
        const { path } = await galleryItem(family, sampleFile('png', 321));

        const response = await server.inject({ method: 'HEAD', url: path });

        expect(response.statusCode).to.equal(200);
        expect(response.headers['content-length']).to.equal(321);
        expect(response.rawPayload.length).to.equal(0);
    });
});
