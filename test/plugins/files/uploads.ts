import Fs from 'fs';

import type { Server } from '@hapi/hapi';
import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import { familyWithKey, testServer } from '../../helpers/server';
import { dataOf, expectError, insertRecord, isoTimestamp } from '../records/fixtures';
import { blobExists, blobPath, pathOf, sampleFile, sampleText, upload } from './fixtures';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('POST /api/v1/gallery and /api/v1/documents', () => {

    let server: Server;

    before(async () => {

        server = await testServer();
    });

    after(async () => {

        await server.stop();
    });

    it('stores a gallery item with its file, its change event, and a signed URL instead of content', async () => {

        const family = await familyWithKey(server);
        const file = sampleFile('png', 300);
        const before = Date.now();

        const response = await upload(family, 'gallery', file, { title: 'Grandma at the beach', place: 'Brighton', original_name: 'beach.png' });
        const created = dataOf(response, 201);

        expect(response.headers.location).to.equal(`${server.app.services.config.publicBaseUrl}/api/v1/gallery/${created.id}`);
        expect(response.headers.etag).to.equal('"1"');
        expect(created).to.include({ title: 'Grandma at the beach', place: 'Brighton', original_name: 'beach.png', media_type: 'image/png', size_bytes: 300, revision: 1 });
        expect(created).to.not.include(['storage_key', 'sha256', 'file_base64']);
        expect(created.url).to.match(/^http:\/\/127\.0\.0\.1:0\/files\/[\w-]+\.[\w-]+$/);
        expect(created.url_expires_at).to.match(isoTimestamp);
        const lifetime = Date.parse(created.url_expires_at) - before;
        expect(lifetime).to.be.within(599_000, 901_000);
        expect(Date.parse(created.url_expires_at) % 300_000).to.equal(0);

        expect(blobExists(server, file)).to.be.true();
        const events = await server.app.services.models.ChangeEvent.findAll({ where: { record_id: created.id } });
        expect(events.map((event) => event.action)).to.equal(['created']);

        const read = dataOf(await family.inject('GET', `/api/v1/gallery/${created.id}`));
        expect(read).to.include({ id: created.id, original_name: 'beach.png', size_bytes: 300 });
        expect(read.url).to.exist();
        // The same link while its expiry stays (a browser's cache of the picture is of use), unless a boundary passed in between.
        expect(read.url === created.url || read.url_expires_at !== created.url_expires_at).to.be.true();
        expect(dataOf(await family.inject('GET', '/api/v1/gallery'))[0].url).to.exist();
        expect(dataOf(await family.inject('GET', '/api/v1/all')).gallery[0].url).to.exist();
    });

    it('gives documents no URL: their file is reached only through /file', async () => {

        const family = await familyWithKey(server);
        const response = await upload(family, 'documents', sampleFile('pdf'), { title: 'Birth certificate', category: 'certificate', original_name: 'birth.pdf' });
        const created = dataOf(response, 201);
        expect(response.headers.etag).to.equal('"1"');

        expect(created).to.include({ title: 'Birth certificate', category: 'certificate', media_type: 'application/pdf' });
        for (const record of [created, dataOf(await family.inject('GET', `/api/v1/documents/${created.id}`)), dataOf(await family.inject('GET', '/api/v1/documents'))[0]]) {
            expect(Object.keys(record)).to.not.include(['url', 'url_expires_at', 'storage_key', 'sha256']);
        }
    });

    it('detects the media type from the content when none is declared', async () => {

        const family = await familyWithKey(server);

        expect(dataOf(await upload(family, 'gallery', sampleFile('jpeg')), 201).media_type).to.equal('image/jpeg');
        expect(dataOf(await upload(family, 'gallery', sampleFile('gif')), 201).media_type).to.equal('image/gif');
        expect(dataOf(await upload(family, 'documents', sampleText()), 201).media_type).to.equal('text/plain');
    });

    it('takes a declared type whatever its case and parameters, when the content matches', async () => {

        const family = await familyWithKey(server);

        expect(dataOf(await upload(family, 'gallery', sampleFile('png'), { mime_type: 'Image/PNG' }), 201).media_type).to.equal('image/png');
        expect(dataOf(await upload(family, 'documents', Buffer.from('Zoë\'s letter\r\n\tto Ana\n'), { mime_type: 'text/plain; charset=utf-8' }), 201).media_type).to.equal('text/plain');
    });

    it('refuses a mime_type that is not a media type (400), saying what one looks like', async () => {

        const family = await familyWithKey(server);

        for (const mimeType of ['; charset=utf-8', ';;;', 'png', 'image/', '/png', 'image png', 'image/png/x']) {
            expectError(await upload(family, 'gallery', sampleFile('png'), { mime_type: mimeType }), 400, 'invalid_request', '"mime_type" must be a media type such as image/jpeg');
        }

        expect(dataOf(await family.inject('GET', '/api/v1/gallery'))).to.equal([]);
    });

    it('refuses content that is not what the declared type says, saying what it looks like (415)', async () => {

        const family = await familyWithKey(server);

        expectError(await upload(family, 'gallery', sampleFile('jpeg'), { mime_type: 'image/png' }), 415, 'unsupported_media_type', 'declared image/png, but its content looks like image/jpeg');
        expectError(await upload(family, 'documents', sampleFile('png'), { mime_type: 'application/pdf' }), 415, 'unsupported_media_type', 'looks like image/png');
        expectError(await upload(family, 'documents', Buffer.from([0x00, 0x01, 0x02, 0xfe]), { mime_type: 'text/plain' }), 415, 'unsupported_media_type', 'is of no type this service recognises');
        expectError(await upload(family, 'documents', Buffer.from([0x61, 0xc3, 0x28]), { mime_type: 'text/plain' }), 415, 'unsupported_media_type', 'is of no type');
    });

    it('refuses types the resource does not accept (415)', async () => {

        const family = await familyWithKey(server);

        expectError(await upload(family, 'gallery', sampleFile('pdf'), { mime_type: 'application/pdf' }), 415, 'unsupported_media_type', 'application/pdf is not accepted for gallery; it accepts image/jpeg, image/png');
        expectError(await upload(family, 'gallery', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), { mime_type: 'image/svg+xml' }), 415, 'unsupported_media_type', 'image/svg+xml is not accepted');
        expectError(await upload(family, 'gallery', sampleFile('pdf')), 415, 'unsupported_media_type', 'content looks like application/pdf; gallery accepts image/jpeg');
        expectError(await upload(family, 'documents', sampleFile('gif')), 415, 'unsupported_media_type', 'looks like image/gif; documents accepts application/pdf');
        expect(dataOf(await family.inject('GET', '/api/v1/gallery'))).to.equal([]);
    });

    it('refuses what is not strict base64 (400)', async () => {

        const family = await familyWithKey(server);
        const valid = sampleFile('png', 31).toString('base64');
        const notBase64 = [
            valid.slice(0, -1),                 // not a multiple of 4
            `${valid.slice(0, 8)}!${valid.slice(9)}`,
            `${valid.slice(0, 40)}\n${valid.slice(40)}`,
            valid.replace(/=+$/, ''),           // padding left out
            `${valid}=`,
            valid.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '') + '-_',     // base64url
            `=${valid.slice(1)}`
        ];

        for (const text of notBase64) {
            expectError(await family.inject('POST', '/api/v1/gallery', { title: 'x', original_name: 'x.png', file_base64: text }), 400, 'invalid_request', '"file_base64" must be base64');
        }

        // What FileReader.readAsDataURL() gives: the message says what to leave out.
        expectError(await family.inject('POST', '/api/v1/gallery', { title: 'x', original_name: 'x.png', file_base64: `data:image/png;base64,${valid}` }), 400, 'invalid_request', 'without line breaks or a data: URL\'s prefix (data:…;base64,)');

        // Well-formed, but the bits after the last character are not zero: Buffer.from() would quietly drop them.
        expectError(await family.inject('POST', '/api/v1/documents', { title: 'x', original_name: 'x.txt', file_base64: 'QR==' }), 400, 'invalid_request', '"file_base64" is not canonical base64');
        expect(dataOf(await family.inject('GET', '/api/v1/gallery'))).to.equal([]);
    });

    it('refuses an empty file, a missing file or name, and unknown fields (400)', async () => {

        const family = await familyWithKey(server);

        expectError(await family.inject('POST', '/api/v1/documents', { title: 'x', original_name: 'x.txt', file_base64: '' }), 400, 'invalid_request', '"file_base64" is empty');
        expectError(await family.inject('POST', '/api/v1/documents', { title: 'x', original_name: 'x.txt' }), 400, 'invalid_request', 'file_base64');
        expectError(await family.inject('POST', '/api/v1/documents', { title: 'x', file_base64: 'YQ==' }), 400, 'invalid_request', 'original_name');
        // Text no database stores as sent is refused, here as in any text of a body, never changed on the way.
        expectError(await family.inject('POST', '/api/v1/documents', { title: 'x', original_name: 'x\u0000.txt', file_base64: 'YQ==' }), 400, 'invalid_request', '"original_name" must not contain the NUL character');
        expectError(await family.inject('POST', '/api/v1/documents', { title: 'x', original_name: '\ud83d.txt', file_base64: 'YQ==' }), 400, 'invalid_request', '"original_name" must be well-formed Unicode');
        expectError(await family.inject('POST', '/api/v1/documents', { title: null, original_name: 'x.txt', file_base64: 'YQ==' }), 400, 'invalid_request', '"title"');
        expectError(await family.inject('POST', '/api/v1/documents', { title: '', original_name: 'x.txt', file_base64: 'YQ==' }), 400, 'invalid_request', '"title"');
        expectError(await family.inject('POST', '/api/v1/documents', { title: 'x', original_name: 'x.txt', file_base64: 'YQ==', size_bytes: 1 }), 400, 'invalid_request', 'size_bytes');
        expectError(await family.inject('POST', '/api/v1/documents', { title: 'x', original_name: 'x.txt', file_base64: 'YQ==', storage_key: 'ab/cd/ef' }), 400, 'invalid_request', 'storage_key');
        expectError(await family.inject('POST', '/api/v1/documents', { title: 'x', original_name: 'x.txt', file_base64: 'YQ==', document_date: '2020-02-30' }), 400, 'invalid_request', 'document_date');
    });

    it('takes the payload the reference writes, file_base64 and original_name alone, titling the record with the file\'s name without its extension', async () => {

        const family = await familyWithKey(server);
        const minimal = async (resource: 'gallery' | 'documents', file: Buffer, originalName: string, more = {}) =>
            dataOf(await family.inject('POST', `/api/v1/${resource}`, { file_base64: file.toString('base64'), original_name: originalName, ...more }), 201);

        expect(await minimal('gallery', sampleFile('png'), 'Grandma at the beach.png')).to.include({ title: 'Grandma at the beach', original_name: 'Grandma at the beach.png' });
        expect(await minimal('gallery', sampleFile('jpeg'), 'C:\\photos\\wedding.1950.JPG', { mime_type: 'image/jpeg' })).to.include({ title: 'wedding.1950', original_name: 'wedding.1950.JPG' });
        expect(await minimal('documents', sampleFile('pdf'), 'will.pdf')).to.include({ title: 'will', original_name: 'will.pdf' });
        // The title is of the name as kept: a text named run.bat is kept as run.bat.txt; leading dots are dropped, and a name without an extension is the title whole.
        expect(await minimal('documents', sampleText(), 'run.bat')).to.include({ title: 'run.bat', original_name: 'run.bat.txt' });
        expect(await minimal('documents', sampleText(), '.bashrc')).to.include({ title: 'bashrc', original_name: 'bashrc.txt' });
        expect(await minimal('documents', sampleFile('pdf'), 'Minutes')).to.include({ title: 'Minutes', original_name: 'Minutes.pdf' });
        // A name longer than a title takes is cut to its 200 characters, never inside one.
        const long = await minimal('documents', sampleFile('pdf'), `${'a'.repeat(190)}${'😀'.repeat(15)}.pdf`);
        expect(long.title).to.equal(`${'a'.repeat(190)}${'😀'.repeat(10)}`);
        // A title given is kept.
        expect(await minimal('gallery', sampleFile('png'), 'x.png', { title: 'Given' })).to.include({ title: 'Given' });
    });

    it('keeps only a safe file name: no path, no invisible characters, not too long, every script\'s letters', async () => {

        const family = await familyWithKey(server);
        const long = `${'é'.repeat(300)}.png`;
        const names: [string, string][] = [
            ['../../../etc/passwd.png', 'passwd.png'],
            ['C:\\Users\\zoe\\Pictures\\beach.png', 'beach.png'],
            ['photo\u202Egnp.exe', 'photognp.exe.png'],
            ['line\nbreak.png', 'linebreak.png'],
            ['  ..hidden.png. ', 'hidden.png'],
            ['a<b>c:"d"|e?f*.png', 'a_b_c__d__e_f_.png'],
            ['Zoë Ωμέγα 张伟.png', 'Zoë Ωμέγα 张伟.png'],
            ['Zoe\u0308.png', 'Zoë.png'],
            // Zero-width (non-)joiners spell words and emoji: kept.
            ['نامه\u200Cها.png', 'نامه\u200Cها.png'],
            ['👨\u200D👩\u200D👧 2026.png', '👨\u200D👩\u200D👧 2026.png'],
            ['..', 'file.png'],
            ['/', 'file.png'],
            // Windows opens a device for these, whatever the extension.
            ['CON', '_CON.png'],
            ['nul.png', '_nul.png'],
            ['Com1.tar.gz', '_Com1.tar.gz.png'],
            ['aux .png', '_aux .png'],
            ['LPT¹.png', '_LPT¹.png'],
            ['conin$.png', '_conin$.png'],
            ['console.png', 'console.png'],
            ['COM10.png', 'COM10.png'],
            ['prn-scan.png', 'prn-scan.png'],
            // At most 255 bytes of UTF-8, what ext4 and XFS take for a name (curl -OJ saves it as is), cut between
            // grapheme clusters; the extension stays.
            [long, `${'é'.repeat(125)}.png`],
            [`${'a'.repeat(300)}.png`, `${'a'.repeat(251)}.png`],
            [`${'张'.repeat(200)}.png`, `${'张'.repeat(83)}.png`],
            [`${'a'.repeat(240)}👨‍👩‍👧.png`, `${'a'.repeat(240)}.png`],
            [`${'a'.repeat(230)}👨‍👩‍👧.png`, `${'a'.repeat(230)}👨‍👩‍👧.png`],
            [`${'a'.repeat(250)}🇸🇪.png`, `${'a'.repeat(250)}.png`],
            [`${'x'.repeat(300)}.extension-too-long-to-keep`, `${'x'.repeat(251)}.png`]
        ];

        for (const [given, kept] of names) {
            const created = dataOf(await upload(family, 'gallery', sampleFile('png'), { original_name: given }), 201);
            expect(created.original_name, given).to.equal(kept);
            // What the upload answered is what was stored.
            expect(dataOf(await family.inject('GET', `/api/v1/gallery/${created.id}`)).original_name, given).to.equal(kept);
        }

        // The name is never a path on disk: blobs are named by their content only.
        const file = sampleFile('png');
        await upload(family, 'gallery', file, { original_name: '../../../../tmp/escaped.png' });
        expect(blobPath(server, file).startsWith(server.app.services.config.filesDir)).to.be.true();
        expect(Fs.existsSync('/tmp/escaped.png')).to.be.false();
    });

    it('names a file for what it is: a name whose extension is not one of its type\'s gets the type\'s own', async () => {

        const family = await familyWithKey(server);
        const cases: [string, Buffer, string][] = [
            ['run.bat', sampleText(), 'run.bat.txt'],                       // text Windows would run as a script
            ['Notes.TXT', sampleText(), 'Notes.TXT'],
            ['family.ged', sampleText(), 'family.ged'],
            ['scan', sampleFile('pdf'), 'scan.pdf'],
            ['IMG_0001.JPG', sampleFile('jpeg'), 'IMG_0001.JPG'],
            ['photo.jpeg', sampleFile('png'), 'photo.jpeg.png'],
            ['invoice.pdf.exe', sampleFile('pdf'), 'invoice.pdf.exe.pdf']
        ];

        for (const [given, file, kept] of cases) {
            const created = dataOf(await upload(family, 'documents', file, { original_name: given }), 201);
            expect(created.original_name, given).to.equal(kept);
            const served = await family.inject('GET', `/api/v1/documents/${created.id}/file`);
            const download = await server.inject(pathOf(served.headers.location as string));
            expect(download.headers['content-disposition'], given).to.contain(`filename="${kept}"`);
        }
    });

    it('takes a file name of 1,000 characters beyond the BMP, as the reference\'s maxLength counts them, and refuses one more', async () => {

        const family = await familyWithKey(server);
        const created = dataOf(await upload(family, 'gallery', sampleFile('png'), { original_name: `${'😀'.repeat(996)}.png` }), 201);
        expect(created.original_name).to.equal(`${'😀'.repeat(62)}.png`);          // 252 bytes: a 63rd would make 256
        expect(dataOf(await family.inject('GET', `/api/v1/gallery/${created.id}`)).original_name).to.equal(created.original_name);
        expectError(await upload(family, 'gallery', sampleFile('png'), { original_name: `${'😀'.repeat(997)}.png` }), 400, 'invalid_request', '"original_name" length must be less than or equal to 1000 characters');
    });

    it('checks references like any create, and leaves no file behind when it refuses', async () => {

        const family = await familyWithKey(server);
        const other = await familyWithKey(server);
        const theirPerson = await insertRecord(server, other.familyLongId, 'persons', { first_name: 'Ana', last_name: 'Other' });
        const file = sampleFile('png');

        expectError(await upload(family, 'gallery', file, { person_id: theirPerson }), 400, 'invalid_request', 'person_id');

        expect(blobExists(server, file)).to.be.false();
        const person = await insertRecord(server, family.familyLongId, 'persons', { first_name: 'Zoë', last_name: 'Smith' });
        expect(dataOf(await upload(family, 'gallery', file, { person_id: person }), 201).person_id).to.equal(person);
        expect(blobExists(server, file)).to.be.true();
    });

    it('needs the resource in the key\'s scopes, and the create operation', async () => {

        const withoutDocuments = await familyWithKey(server, { keyResources: ['gallery'] });
        expectError(await upload(withoutDocuments, 'documents', sampleText()), 403, 'resource_scope');
        dataOf(await upload(withoutDocuments, 'gallery', sampleFile('png')), 201);

        const readOnly = await familyWithKey(server, { operations: ['read'] });
        expectError(await upload(readOnly, 'gallery', sampleFile('png')), 403, 'operation_scope');

        const noKey = await server.inject({ method: 'POST', url: '/api/v1/gallery', payload: { title: 'x', original_name: 'x.png', file_base64: sampleFile('png').toString('base64') } });
        expectError(noKey, 401, 'invalid_key');
    });

    it('updates the metadata of an uploaded record and keeps its file', async () => {

        const family = await familyWithKey(server);
        const created = dataOf(await upload(family, 'gallery', sampleFile('png')), 201);

        const response = await family.inject('PATCH', `/api/v1/gallery/${created.id}`, { title: 'Renamed' }, { 'if-match': '"1"' });
        const updated = dataOf(response);

        expect(response.headers.etag).to.equal('"2"');
        expect(updated).to.include({ title: 'Renamed', revision: 2, original_name: created.original_name, size_bytes: created.size_bytes });
        expect(updated.url).to.exist();
        expectError(await family.inject('PATCH', `/api/v1/gallery/${created.id}`, { media_type: 'image/gif' }), 400, 'invalid_request', 'media_type');
    });
});
