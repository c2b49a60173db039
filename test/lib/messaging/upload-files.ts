import Fs from 'fs';
import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { ServiceError } from '../../../lib/errors';
import { attachmentFileName, storeWholeUpload, type UploadFilesContext, type UploadOwner } from '../../../lib/messaging/upload-files';
import { storageUsed } from '../../../lib/storage-quota';
import type { User } from '../../../models/user';
import { familyMember } from '../../helpers/devices';
import { testServer, testVariant } from '../../helpers/server';
import { uploadPolicies } from '../../helpers/uploads';
import { sampleFile } from '../../plugins/files/fixtures';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe(`lib/messaging/upload-files (${testVariant})`, () => {

    let server: Server;

    before(async () => {

        // The Family plan: 100,000 bytes of storage, attachments up to 80,000 bytes.
        server = await testServer({ policiesDir: uploadPolicies() });
    });

    after(() => server.stop());

    const services = () => server.app.services;
    const context = (): UploadFilesContext => ({
        models: services().models, transaction: services().transaction, files: services().uploadFiles, policies: () => services().policyStore.current()
    });
    const ownerOf = (user: User): UploadOwner => ({ familyLongId: user.family_long_id!, plan: 'family', userId: user.id, grantId: null });
    const filesOnDisk = () => {

        const dir = Path.join(services().config.filesDir, 'uploads');
        return Fs.existsSync(dir) ? Fs.readdirSync(dir).sort() : [];
    };

    async function refusal(work: Promise<unknown>): Promise<ServiceError> {

        const error = await expect(work).to.reject();
        expect(error).to.be.an.instanceof(ServiceError);
        return error as ServiceError;
    }

    it('keeps a whole file as a complete upload, as a tus upload in one piece: its row, bytes, type by content and expiry', async () => {

        const user = await familyMember(server);
        const bytes = sampleFile('png', 1000);
        const id = await storeWholeUpload(context(), ownerOf(user), { name: 'C:\\Users\\zoe\\photo\u202E.png', declaredType: 'text/html', bytes });
        const row = (await services().models.MessagingUpload.findByPk(id))!;
        const { user_id, grant_id, file_name, declared_type, length_bytes, offset_bytes, media_type, message_id } = row;
        expect({ user_id, grant_id, file_name, declared_type, length_bytes, offset_bytes, media_type, message_id }).to.equal({ user_id: user.id, grant_id: null, file_name: 'photo.png', declared_type: 'text/html', length_bytes: 1000, offset_bytes: 1000, media_type: 'image/png', message_id: null });
        expect(row.completed_at).to.be.a.date();
        const unattached = services().policyStore.current().messaging.uploads.unattached_minutes * 60_000;
        expect(row.expires_at.getTime() - row.completed_at!.getTime()).to.equal(unattached);
        expect((await services().uploadFiles.read(id)).equals(bytes)).to.be.true();
        expect(await storageUsed(services().models, user.family_long_id!)).to.equal(1000);
    });

    it('refuses by size, by quota and by content with ServiceErrors, leaving no row and no file behind', async () => {

        const user = await familyMember(server);
        const before = filesOnDisk();
        const tooLarge = await refusal(storeWholeUpload(context(), ownerOf(user), { name: 'big.png', declaredType: null, bytes: sampleFile('png', 80_001) }));
        expect(tooLarge).to.include({ code: 'too_large', statusCode: 413 });

        await storeWholeUpload(context(), ownerOf(user), { name: 'first.png', declaredType: null, bytes: sampleFile('png', 70_000) });
        const afterFirst = filesOnDisk();
        const overQuota = await refusal(storeWholeUpload(context(), ownerOf(user), { name: 'second.png', declaredType: null, bytes: sampleFile('png', 40_000) }));
        expect(overQuota).to.include({ code: 'quota_exceeded', statusCode: 413 });

        const byContent = await refusal(storeWholeUpload(context(), ownerOf(user), { name: 'setup.png', declaredType: 'image/png', bytes: Buffer.from([0x4d, 0x5a, 0x90, 0x00, 0xff]) }));
        expect(byContent).to.include({ code: 'unsupported_media_type', statusCode: 415 });
        expect(byContent.message).to.contain('is of no type this service recognises');

        expect(await services().models.MessagingUpload.count({ where: { family_long_id: user.family_long_id! } })).to.equal(1);
        expect(filesOnDisk()).to.equal(afterFirst);
        expect(afterFirst.length).to.equal(before.length + 1);
        expect(await storageUsed(services().models, user.family_long_id!)).to.equal(70_000);
    });

    it('names an attachment by its last path segment without invisible characters, `attachment` when nothing is left', () => {

        expect(attachmentFileName('/home/zoe/\u200Breunion.pdf')).to.equal('reunion.pdf');
        expect(attachmentFileName('  \u202E ')).to.equal('attachment');
        expect(Buffer.byteLength(attachmentFileName('é'.repeat(300)))).to.be.at.most(255);
    });
});
