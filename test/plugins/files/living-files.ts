import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server, ServerInjectResponse } from '@hapi/hapi';

import { concernRoles, livingFamily, type ConcernRole, type LivingFamily } from '../../helpers/living-family';
import { testServer, type FamilyFixture } from '../../helpers/server';
import { dataOf, expectError } from '../records/fixtures';
import { pathOf, sampleFile, upload } from './fixtures';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

const expectNotFound = (response: ServerInjectResponse) => expectError(response, 404, 'not_found');

describe('files of records of living persons, for a key with living_persons: redacted', () => {

    let server: Server;
    let family: LivingFamily;

    /** The bytes a signed URL serves: 200 and the file's content. */
    const served = async (url: string) => {

        const response = await server.inject(pathOf(url));
        expect(response.statusCode, response.payload).to.equal(200);
        return response.rawPayload;
    };

    const galleryItem = async (key: FamilyFixture, id: string) => dataOf(await key.inject('GET', `/api/v1/gallery/${id}`));
    const documentRedirect = (key: FamilyFixture, id: string) => key.inject('GET', `/api/v1/documents/${id}/file`);

    before(async () => {

        server = await testServer();
        family = await livingFamily(server);
    });

    after(() => server.stop());

    it('gives no gallery URL for a living person\'s item, in its record and in lists; the others\' URLs serve their files', async () => {

        const item = await galleryItem(family.redacted, family.gallery.ofLiving);
        expect(item.redacted).to.be.true();
        expect(item).to.not.include(['url', 'url_expires_at']);

        const listed = dataOf(await family.redacted.inject('GET', '/api/v1/gallery?limit=100')) as Record<string, unknown>[];
        const byId = new Map(listed.map((record) => [record.id, record]));
        expect(byId.get(family.gallery.ofLiving)).to.not.include('url');
        for (const role of ['ofDead', 'ofNobody'] as const) {
            const record = byId.get(family.gallery[role])!;
            expect(record.redacted).to.be.false();
            expect(await served(record.url as string)).to.equal(family.files.gallery[role]);
            expect(await served((await galleryItem(family.redacted, family.gallery[role])).url as string)).to.equal(family.files.gallery[role]);
        }

        const all = (dataOf(await family.redacted.inject('GET', '/api/v1/all?limit=100')) as unknown as Record<string, Record<string, unknown>[]>).gallery;
        expect(all.find((record) => record.id === family.gallery.ofLiving)).to.not.include('url');
    });

    it('answers 404 not_found for a living person\'s document file; the others redirect to their files', async () => {

        expectError(await documentRedirect(family.redacted, family.documents.ofLiving), 404, 'not_found', 'has no file');
        for (const role of ['ofDead', 'ofNobody'] as const) {
            const redirect = await documentRedirect(family.redacted, family.documents[role]);
            expect(redirect.statusCode, redirect.payload).to.equal(302);
            expect(await served(redirect.headers.location as string)).to.equal(family.files.documents[role]);
        }
    });

    it('leaves a full key as it was: every file served', async () => {

        for (const role of concernRoles) {
            const item = await galleryItem(family.full, family.gallery[role]);
            expect(item).to.not.include('redacted');
            expect(await served(item.url as string)).to.equal(family.files.gallery[role]);
            const redirect = await documentRedirect(family.full, family.documents[role]);
            expect(redirect.statusCode).to.equal(302);
            expect(await served(redirect.headers.location as string)).to.equal(family.files.documents[role]);
        }
    });

    it('serves no file through a URL issued to a redacted key once its record concerns a living person; a full key\'s URL still works', async () => {

        const concerning = async (resource: 'gallery' | 'documents', role: ConcernRole) => {

            const file = sampleFile(resource === 'gallery' ? 'png' : 'pdf');
            const response = await upload(family.full, resource, file, { original_name: `moved.${resource === 'gallery' ? 'png' : 'pdf'}`, person_id: family.persons[role === 'ofDead' ? 'deadByDeathDate' : 'livingRecent'] });
            return { id: dataOf(response, 201).id as string, file };
        };

        const picture = await concerning('gallery', 'ofDead');
        const letter = await concerning('documents', 'ofDead');
        const redactedUrls = [(await galleryItem(family.redacted, picture.id)).url as string, (await documentRedirect(family.redacted, letter.id)).headers.location as string];
        const fullUrls = [(await galleryItem(family.full, picture.id)).url as string, (await documentRedirect(family.full, letter.id)).headers.location as string];
        expect(redactedUrls).to.not.include(fullUrls);
        expect(await served(redactedUrls[0])).to.equal(picture.file);
        expect(await served(redactedUrls[1])).to.equal(letter.file);

        // The person the records concern becomes a living one: the URLs already handed out stop serving.
        for (const [resource, id] of [['gallery', picture.id], ['documents', letter.id]]) {
            const moved = await family.full.inject('PATCH', `/api/v1/${resource}/${id}`, { person_id: family.persons.livingRecent });
            expect(moved.statusCode, moved.payload).to.equal(200);
        }

        for (const url of redactedUrls) {
            expectNotFound(await server.inject(pathOf(url)));
        }

        expect(await served(fullUrls[0])).to.equal(picture.file);
        expect(await served(fullUrls[1])).to.equal(letter.file);
    });
});
