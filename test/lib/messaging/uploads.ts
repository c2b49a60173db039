import Fs from 'fs';
import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import type { Policies } from '../../../gateway/policies/policy-file';
import { ServiceError } from '../../../lib/errors';
import { recordId } from '../../../lib/ids';
import { attachUploads, releaseUploads } from '../../../lib/messaging/uploads';
import { storageUsed } from '../../../lib/storage-quota';
import type { User } from '../../../models/user';
import { familyMember } from '../../helpers/devices';
import { testServer, testVariant } from '../../helpers/server';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe(`lib/messaging/uploads (${testVariant})`, () => {

    let server: Server;

    before(async () => {

        server = await testServer();
    });

    after(() => server.stop());

    const services = () => server.app.services;
    const hasBytes = (id: string) => Fs.existsSync(Path.join(services().config.filesDir, 'uploads', id));

    /** An upload of `user` as the tus routes leave it: finished (of `mediaType`) unless told otherwise. */
    async function upload(user: User, options: { mediaType?: string; finished?: boolean; expired?: boolean; messageId?: string } = {}) {

        const id = recordId('upl');
        const finished = options.finished ?? true;
        await services().uploadFiles.create(id);
        await services().uploadFiles.append(id, 0, [Buffer.alloc(finished ? 100 : 40)]);
        return services().models.MessagingUpload.create({
            id, family_long_id: user.family_long_id!, user_id: user.id, grant_id: null, file_name: `${id}.png`, declared_type: null,
            length_bytes: 100, offset_bytes: finished ? 100 : 40, media_type: finished ? options.mediaType ?? 'image/png' : null, completed_at: finished ? new Date() : null,
            expires_at: new Date(Date.now() + (options.expired ? -1000 : 60_000)), message_id: options.messageId ?? null
        });
    }

    const attach = (user: User, messageId: string, uploadIds: string[], policies: Policies = services().policyStore.current()) => {

        const input = { familyLongId: user.family_long_id!, userId: user.id, messageId, uploadIds };
        return services().transaction((transaction) => attachUploads(services().models, policies, input, transaction));
    };

    async function refusal(work: Promise<unknown>): Promise<ServiceError> {

        const error = await expect(work).to.reject();
        expect(error).to.be.an.instanceof(ServiceError);
        return error as ServiceError;
    }

    it('attaches the user\'s finished uploads to a message, in the order given, and again to the same message', async () => {

        const user = await familyMember(server);
        const [first, second] = [await upload(user), await upload(user, { mediaType: 'application/pdf' })];
        const attachments = await attach(user, 'msg_one', [second.id, first.id]);
        expect(attachments).to.equal([
            { upload_id: second.id, file_name: `${second.id}.png`, media_type: 'application/pdf', size_bytes: 100 },
            { upload_id: first.id, file_name: `${first.id}.png`, media_type: 'image/png', size_bytes: 100 }
        ]);
        await first.reload();
        expect(first.message_id).to.equal('msg_one');
        expect(first.attached_at).to.be.a.date();
        expect(await attach(user, 'msg_one', [first.id])).to.have.length(1);
    });

    it('refuses with not_found another user\'s or family\'s upload, a missing one and an expired one; upload_incomplete; conflict for another message\'s', async () => {

        const user = await familyMember(server);
        const sameFamily = await services().models.User.create({ id: recordId('usr'), email: `${recordId('m').toLowerCase()}@example.com`, password_hash: 'x'.repeat(60), family_long_id: user.family_long_id, role: 'member' });
        const otherFamily = await familyMember(server);
        const mine = await upload(user);
        for (const [caller, ids] of [[sameFamily, [mine.id]], [otherFamily, [mine.id]], [user, ['upl_AAAAAAAAAAAAAAAAAAAA']], [user, [(await upload(user, { expired: true })).id]]] as const) {
            const error = await refusal(attach(caller, 'msg_x', [...ids]));
            expect(error).to.include({ code: 'not_found', statusCode: 404 });
        }

        expect(await refusal(attach(user, 'msg_x', [(await upload(user, { finished: false })).id]))).to.include({ code: 'upload_incomplete', statusCode: 409 });
        expect(await refusal(attach(user, 'msg_x', [(await upload(user, { messageId: 'msg_other' })).id]))).to.include({ code: 'conflict', statusCode: 409 });
        expect(await refusal(attach(user, 'msg_x', [mine.id, mine.id]))).to.include({ code: 'invalid_request' });
        await mine.reload();
        expect(mine.message_id).to.be.null();
    });

    it('checks the attachment policy in force now: attachment_policy for a type the plan no longer allows, and nothing attached', async () => {

        const user = await familyMember(server);
        const [png, pdf] = [await upload(user), await upload(user, { mediaType: 'application/pdf' })];
        const current = services().policyStore.current();
        const onlyImages: Policies = {
            ...current,
            messaging: { ...current.messaging, attachments: { plans: current.messaging.attachments.plans.map((plan) => ({ ...plan, media_types: ['image/png'] })) } }
        };
        const error = await refusal(attach(user, 'msg_policy', [png.id, pdf.id], onlyImages));
        expect(error).to.include({ code: 'attachment_policy', statusCode: 422 });
        expect(error.message).to.equal('The file\'s content looks like application/pdf; messages on the Family plan may carry image/png.');
        await png.reload();
        expect(png.message_id).to.be.null();            // the transaction rolled back
    });

    it('releases a deleted message\'s uploads: the rows (and their quota) in the transaction, the bytes once it commits', async () => {

        const user = await familyMember(server);
        const other = await familyMember(server);
        const [kept, released, othersUpload] = [await upload(user), await upload(user), await upload(other)];
        const context = { models: services().models, files: services().uploadFiles, log: services().log };

        await expect(services().transaction(async (transaction) => {

            await releaseUploads(context, user.family_long_id!, [released.id], transaction);
            throw new Error('rolled back');
        })).to.reject('rolled back');
        expect(hasBytes(released.id)).to.be.true();
        expect(await services().models.MessagingUpload.findByPk(released.id)).to.exist();

        const count = await services().transaction((transaction) => releaseUploads(context, user.family_long_id!, [released.id, othersUpload.id], transaction));
        expect(count).to.equal(1);
        expect(hasBytes(released.id)).to.be.false();
        expect(await services().models.MessagingUpload.findByPk(released.id)).to.be.null();
        expect(hasBytes(othersUpload.id)).to.be.true();
        expect(hasBytes(kept.id)).to.be.true();
        expect(await storageUsed(services().models, user.family_long_id!)).to.equal(100);
    });
});
