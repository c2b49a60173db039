import type { Server } from '@hapi/hapi';
import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import { familyWithKey, testServer } from '../../helpers/server';
import { dataOf, expectError, insertRecord } from '../records/fixtures';
import { pathOf, sampleFile, upload } from './fixtures';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('GET /api/v1/documents/{id}/file', () => {

    let server: Server;

    before(async () => {

        server = await testServer();
    });

    after(async () => {

        await server.stop();
    });

    it('redirects (302) to a signed URL valid for seconds, which serves the file as a download', async () => {

        const family = await familyWithKey(server);
        const file = sampleFile('pdf', 2048);
        const { id } = dataOf(await upload(family, 'documents', file, { original_name: 'Testament; 100% Zoë\'s.pdf' }), 201);

        const redirect = await family.inject('GET', `/api/v1/documents/${id}/file`);

        expect(redirect.statusCode).to.equal(302);
        expect(redirect.headers['cache-control']).to.equal('no-store');
        expect(redirect.headers.location as string).to.startWith(`${server.app.services.config.publicBaseUrl}/files/`);
        expect(redirect.payload).to.equal('');
        expect(redirect.headers['content-type'], 'an empty body of no type, as the reference documents').to.not.exist();

        const served = await server.inject(pathOf(redirect.headers.location as string));
        expect(served.statusCode).to.equal(200);
        expect(served.rawPayload).to.equal(file);
        expect(served.headers['content-type']).to.equal('application/pdf');
        expect(served.headers['content-disposition']).to.equal('attachment; filename="Testament_ 100_ Zoe\'s.pdf"; filename*=UTF-8\'\'Testament%3B%20100%25%20Zo%C3%AB%27s.pdf');
        expect(Number(/max-age=(\d+)$/.exec(served.headers['cache-control'] as string)![1])).to.be.within(35, 60);          // linkExpiry(): two thirds of the lifetime at least, less a few seconds of test
        // Browsers' PDF viewers refuse to work in a sandbox, should a policy serve documents inline.
        expect(served.headers['content-security-policy']).to.not.exist();
    });

    it('serves plain text as UTF-8, sandboxed: HTML in it runs nothing, however a browser shows it', async () => {

        const family = await familyWithKey(server);
        const text = Buffer.from('Liebe Zoë,\nalles Gute!\n<script>alert(document.cookie)</script>\n');
        const { id } = dataOf(await upload(family, 'documents', text, { original_name: 'brief.txt' }), 201);

        const served = await server.inject(pathOf((await family.inject('GET', `/api/v1/documents/${id}/file`)).headers.location as string));

        expect(served.headers['content-type']).to.equal('text/plain; charset=utf-8');
        expect(served.headers['content-security-policy']).to.equal('default-src \'none\'; style-src \'unsafe-inline\'; sandbox');
        expect(served.rawPayload).to.equal(text);
    });

    it('answers 404 for another family\'s document, an unknown id, and a document without a file', async () => {

        const owner = await familyWithKey(server);
        const stranger = await familyWithKey(server);
        const { id } = dataOf(await upload(owner, 'documents', sampleFile('pdf')), 201);
        const withoutFile = await insertRecord(server, owner.familyLongId, 'documents', { title: 'Listed before uploads existed' });

        expectError(await stranger.inject('GET', `/api/v1/documents/${id}/file`), 404, 'not_found', id);
        expectError(await owner.inject('GET', '/api/v1/documents/doc_AAAAAAAAAAAAAAAAAAAA/file'), 404, 'not_found');
        expectError(await owner.inject('GET', `/api/v1/documents/${withoutFile}/file`), 404, 'not_found', 'has no file');
    });

    it('needs a key with documents and read, like reading documents', async () => {

        const owner = await familyWithKey(server);
        const { id } = dataOf(await upload(owner, 'documents', sampleFile('pdf')), 201);
        const sameFamily = (options: { keyResources?: string[]; operations?: string[] }) => familyWithKey(server, options);

        expectError(await server.inject(`/api/v1/documents/${id}/file`), 401, 'invalid_key');

        const galleryOnly = await sameFamily({ keyResources: ['gallery'] });
        expectError(await galleryOnly.inject('GET', `/api/v1/documents/${id}/file`), 403, 'resource_scope');

        const createOnly = await sameFamily({ operations: ['create'] });
        expectError(await createOnly.inject('GET', `/api/v1/documents/${id}/file`), 403, 'operation_scope');
    });

    it('is the only way to a document\'s bytes', async () => {

        const family = await familyWithKey(server);
        const { id } = dataOf(await upload(family, 'documents', sampleFile('pdf')), 201);

        for (const path of [`/api/v1/gallery/${id}/file`, `/api/v1/documents/${id}/content`, `/files/${id}`, '/files']) {
            const response = await family.inject('GET', path);
            expect(response.statusCode, path).to.be.within(403, 404);
            expect(response.headers['content-type'] as string).to.startWith('application/json');
        }
    });
});
