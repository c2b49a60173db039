import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { createApiKey } from '../../../lib/accounts/api-keys';
import { enableApi } from '../../../lib/accounts/families';
import { storageUsed } from '../../../lib/storage-quota';
import { connectedDevice, familyMember } from '../../helpers/devices';
import { allOperations, allResources, testVariant } from '../../helpers/server';
import { tusRequest, tusUpload, uploadServer } from '../../helpers/uploads';
import { sampleFile } from '../files/fixtures';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe(`/messaging/v1/uploads and the family's storage quota (${testVariant})`, () => {

    let server: Server;
    let endpoint: string;

    before(async () => {

        let baseUrl: string;
        ({ server, baseUrl } = await uploadServer());
        endpoint = `${baseUrl}/messaging/v1/uploads`;
    });

    after(() => server.stop());

    /** A user's device and an API key of the same family (Family plan: 100,000 bytes of storage in uploadPolicies()). */
    async function family() {

        const user = await familyMember(server);
        const familyLongId = user.family_long_id!;
        const { access_token: token } = await connectedDevice(server, user);
        const accounts = server.app.services.accounts;
        await enableApi(accounts, familyLongId, allResources);
        const { key } = await createApiKey(accounts, { familyLongId, name: 'test key', resources: allResources, operations: allOperations, createdBy: 'test' });
        const galleryUpload = (file: Buffer) => server.inject({
            method: 'POST', url: '/api/v1/gallery', headers: { authorization: `Bearer ${key}` },
            payload: { title: 'Upload', original_name: 'file.png', file_base64: file.toString('base64') }
        });
        const create = (length: number) => tusRequest(server, token, 'POST', '/messaging/v1/uploads', { 'upload-length': String(length) });
        return { familyLongId, token, galleryUpload, create };
    }

    it('counts an upload\'s declared length from its creation, unfinished: the gallery\'s next upload no longer fits', async () => {

        const { familyLongId, galleryUpload, create } = await family();
        expect((await create(70_000)).statusCode).to.equal(201);
        expect(await storageUsed(server.app.services.models, familyLongId)).to.equal(70_000);

        const refused = await galleryUpload(sampleFile('png', 40_000));
        expect(refused.result).to.include({ statusCode: 413, code: 'quota_exceeded' });
        expect((refused.result as { message: string }).message).to.contain('30000 bytes (29.3 KiB) is left');
        expect((await galleryUpload(sampleFile('png', 30_000))).statusCode).to.equal(201);
        expect(await storageUsed(server.app.services.models, familyLongId)).to.equal(100_000);
    });

    it('counts gallery items and documents against a new upload: 413 quota_exceeded when its length does not fit', async () => {

        const { familyLongId, galleryUpload, create } = await family();
        expect((await galleryUpload(sampleFile('png', 55_000))).statusCode).to.equal(201);
        const refused = await create(50_000);
        expect(refused.result).to.include({ statusCode: 413, code: 'quota_exceeded' });
        expect(refused.headers['tus-resumable']).to.equal('1.0.0');
        expect(await server.app.services.models.MessagingUpload.count({ where: { family_long_id: familyLongId } })).to.equal(0);
        expect((await create(45_000)).statusCode).to.equal(201);
    });

    it('refuses with tus-js-client too, which reads the 413 as a failure', async () => {

        const { token, create } = await family();
        expect((await create(80_000)).statusCode).to.equal(201);
        const outcome = await tusUpload(sampleFile('png', 30_000), token, { endpoint });
        expect(outcome.responses).to.equal([{ method: 'POST', status: 413, offset: undefined }]);
        expect(JSON.parse(outcome.error!.originalResponse!.getBody())).to.include({ code: 'quota_exceeded' });
    });

    it('frees the share of a terminated or refused upload', async () => {

        const { familyLongId, token, create } = await family();
        const created = await create(60_000);
        await tusRequest(server, token, 'DELETE', new URL(created.headers.location as string).pathname);
        const note = Buffer.from('A note: the Family plan\'s attachments may be text.');
        expect((await tusUpload(note, token, { endpoint })).error).to.not.exist();
        const binary = await tusUpload(Buffer.from([0, 1, 2, 3, 4, 5]), token, { endpoint });
        expect(JSON.parse(binary.error!.originalResponse!.getBody())).to.include({ code: 'unsupported_media_type' });
        expect(await storageUsed(server.app.services.models, familyLongId)).to.equal(note.length);
    });
});
