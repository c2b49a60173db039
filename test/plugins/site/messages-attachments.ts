import Fs from 'fs';
import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { createFamily } from '../../../lib/accounts/families';
import type { MessagingActor } from '../../../lib/messaging/context';
import { startDirectConversation } from '../../../lib/messaging/conversations';
import { storageUsed } from '../../../lib/storage-quota';
import { editPolicyFile } from '../../helpers/policy-files';
import { testServer, testVariant } from '../../helpers/server';
import { uploadPolicies } from '../../helpers/uploads';
import { sampleFile } from '../files/fixtures';
import { siteAccount } from './client';
import { HttpBrowser } from './http-browser';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

/**
 * The upload tests' policies (the Family plan: 100,000 bytes of storage, attachments up to 80,000 bytes), with every
 * plan's attachments that small: the compose form's body limit is then 3 × 80,000 bytes and 1 MiB for the text.
 */
function attachmentPolicies(): string {

    const dir = uploadPolicies();
    editPolicyFile(dir, 'messaging.yaml', 'max_file_bytes: 5242880          # 5 MiB', 'max_file_bytes: 80000');
    for (let plan = 0; plan < 2; ++plan) {
        editPolicyFile(dir, 'messaging.yaml', 'max_file_bytes: 26214400         # 25 MiB', 'max_file_bytes: 80000');
    }

    return dir;
}

/** A Windows executable's first bytes (MZ), and an HTML page: neither is an attachment, whatever its name says. */
const executable = Buffer.concat([Buffer.from('MZ'), Buffer.alloc(200, 0x90)]);
const htmlPage = Buffer.from('<!DOCTYPE html><html><body><script>alert(document.cookie)</script></body></html>');

describe(`attachments on the /messages pages over HTTP on ${testVariant}`, () => {

    let server: Server;

    before(async () => {

        server = await testServer({ policiesDir: attachmentPolicies() });
        await server.start();
    });

    after(async () => {

        await server.stop();
    });

    interface Person {
        browser: HttpBrowser;
        actor: MessagingActor;
    }

    /** A family of its own (by default on the Family plan): a manager, then members, each signed in in a browser of their own. */
    async function family(count: number, plan = 'family'): Promise<Person[]> {

        const { family_long_id: familyLongId } = await createFamily(server.app.services.accounts, { name: 'Attachments family', plan });
        const people: Person[] = [];
        for (let index = 0; index < count; ++index) {
            const role = index === 0 ? 'manager' : 'member';
            const { user, email, password } = await siteAccount(server, { role, familyLongId });
            people.push({ browser: await new HttpBrowser(server).signIn(email, password), actor: { userId: user.id, familyLongId, isManager: role === 'manager' } });
        }

        return people;
    }

    const direct = async (one: Person, other: Person) => (await startDirectConversation(server.app.services.messaging, one.actor, other.actor.userId)).conversation.id;
    const models = () => server.app.services.models;
    const uploadsDir = () => Path.join(server.app.services.config.filesDir, 'uploads');
    const filesOnDisk = () => (Fs.existsSync(uploadsDir()) ? Fs.readdirSync(uploadsDir()).sort() : []);
    const uploadRows = (familyLongId: string) => models().MessagingUpload.count({ where: { family_long_id: familyLongId } });
    const png = (name: string, size = 2000) => ({ field: 'files', name, type: 'image/png', bytes: sampleFile('png', size) });
    /** Opens the conversation (its CSRF cookie), then sends the compose form with `files`. */
    const send = async (person: Person, conversationId: string, body: string, files: ReturnType<typeof png>[], options: { crumb?: boolean } = {}) => {

        await person.browser.get(`/messages/${conversationId}`);
        return person.browser.postMultipart(`/messages/${conversationId}`, { body }, files, options);
    };

    /** The upload id of the attachment links a page shows. */
    const attachmentLinks = (page: string) => [...page.matchAll(/href="(\/messages\/cnv_[0-9A-Za-z]+\/files\/(upl_[0-9A-Za-z]+))"/g)].map((match) => ({ href: match[1], id: match[2] }));

    it('offers a file input in a multipart compose form, saying how many files of which types and sizes', async () => {

        const [manager, zoe] = await family(2);
        const id = await direct(manager, zoe);
        const page = await manager.browser.get(`/messages/${id}`);
        expect(page.status).to.equal(200);
        expect(page.text).to.contain(`<form method="post" action="/messages/${id}" class="card stack compose" id="compose" enctype="multipart/form-data">`);
        expect(page.text).to.contain('<input type="file" name="files" multiple accept="image/jpeg,image/png,image/gif,image/webp,image/heic,image/heif,application/pdf,text/plain"');
        expect(page.text).to.contain('Up to 3 files, each up to 78.1 KB');
    });

    it('sends a message with a PNG that the other member downloads, as an attachment under a safe name, counted in the storage', async () => {

        const [manager, zoe] = await family(2);
        const id = await direct(manager, zoe);
        const photo = png('beach\u202Egnp.exe.png', 3000);
        const sent = await send(manager, id, 'The beach', [photo]);
        expect(sent.status).to.equal(302);
        expect(sent.location!).to.match(new RegExp(`^/messages/${id}#msg_`));

        const page = await zoe.browser.get(`/messages/${id}`);
        expect(page.text).to.contain('The beach');
        const [link] = attachmentLinks(page.text);
        expect(link.id).to.startWith('upl_');
        expect(page.text).to.contain('image/png');
        expect(await storageUsed(models(), manager.actor.familyLongId)).to.equal(3000);

        const download = await zoe.browser.get(link.href);
        expect(download.status).to.equal(200);
        expect(download.headers.get('content-type')).to.equal('image/png');
        expect(download.headers.get('content-disposition')).to.equal('attachment; filename="beachgnp.exe.png"; filename*=UTF-8\'\'beachgnp.exe.png');
        expect(download.headers.get('x-content-type-options')).to.equal('nosniff');
        expect(download.headers.get('cache-control')).to.equal('no-store');
        expect(download.bytes.equals(photo.bytes)).to.be.true();
        // The sender downloads it too; a text-only send from the same multipart form still works (an empty file input).
        expect((await manager.browser.get(link.href)).status).to.equal(200);
        const textOnly = await send(manager, id, 'Text only', [{ field: 'files', name: '', type: 'application/octet-stream', bytes: Buffer.alloc(0) }]);
        expect(textOnly.status).to.equal(302);
        expect(await uploadRows(manager.actor.familyLongId)).to.equal(1);
    });

    it('answers 404 for the file to a member of the family outside the conversation, to another family, and under another conversation', async () => {

        const [manager, zoe, mateo] = await family(3);
        const id = await direct(manager, zoe);
        expect((await send(manager, id, 'For Zoë', [png('photo.png')])).status).to.equal(302);
        const [link] = attachmentLinks((await zoe.browser.get(`/messages/${id}`)).text);

        expect((await mateo.browser.get(link.href)).status).to.equal(404);
        const [stranger, friend] = await family(2);
        expect((await stranger.browser.get(link.href)).status).to.equal(404);
        // Another conversation's path, whoever is a member of it: the file is the message's, in its conversation.
        const other = await direct(manager, mateo);
        expect((await manager.browser.get(`/messages/${other}/files/${link.id}`)).status).to.equal(404);
        const strangers = await direct(stranger, friend);
        expect((await stranger.browser.get(`/messages/${strangers}/files/${link.id}`)).status).to.equal(404);
        expect((await zoe.browser.get(`/messages/${id}/files/upl_00000000000000000000`)).status).to.equal(404);
    });

    it('refuses a .png that is an executable, or HTML where text is not allowed, by its content (415), keeping the text, leaving no file behind', async () => {

        const before = filesOnDisk();
        for (const [plan, bytes, allowed] of [['family', executable, 'image/jpeg, image/png'], ['lite', htmlPage, 'image/jpeg, image/png, image/gif, image/webp']] as const) {
            const [manager, zoe] = await family(2, plan);
            const id = await direct(manager, zoe);
            const refused = await send(manager, id, 'Look at this', [{ field: 'files', name: 'photo.png', type: 'image/png', bytes }]);
            expect(refused.status).to.equal(415);
            expect(refused.text).to.contain('role="alert"');
            expect(refused.text).to.contain(`may carry ${allowed}`);
            expect(refused.text).to.contain('>Look at this</textarea>');
            expect(await uploadRows(manager.actor.familyLongId)).to.equal(0);
            expect(await models().Message.count({ where: { conversation_id: id } })).to.equal(0);
        }

        expect(filesOnDisk()).to.equal(before);
    });

    it('serves HTML that a plan takes as text as what its content is: text/plain, downloaded, never shown as a page', async () => {

        const [manager, zoe] = await family(2);
        const id = await direct(manager, zoe);
        expect((await send(manager, id, 'A page', [{ field: 'files', name: 'page.html', type: 'text/html', bytes: htmlPage }])).status).to.equal(302);
        const [link] = attachmentLinks((await zoe.browser.get(`/messages/${id}`)).text);
        const download = await zoe.browser.get(link.href);
        expect(download.status).to.equal(200);
        expect(download.headers.get('content-type')!).to.startWith('text/plain');
        expect(download.headers.get('content-disposition')!).to.startWith('attachment; filename="page.html.txt"');
        expect(download.headers.get('x-content-type-options')).to.equal('nosniff');
        expect(download.bytes.equals(htmlPage)).to.be.true();
    });

    it('refuses a file over the plan\'s largest attachment (413 too_large) on the page, and a body over the form\'s limit with a 413 page', async () => {

        const [manager, zoe] = await family(2);
        const id = await direct(manager, zoe);
        const before = filesOnDisk();
        const tooLarge = await send(manager, id, 'A big one', [png('big.png', 80_001)]);
        expect(tooLarge.status).to.equal(413);
        expect(tooLarge.text).to.contain('The file is 80001 bytes (78.1 KiB); messages on the Family plan carry files up to 80000 bytes');
        expect(tooLarge.text).to.contain('>A big one</textarea>');

        const overTheForm = await send(manager, id, 'Far too big', [png('huge.png', 3 * 80_000 + 1024 * 1024 + 1)]);
        expect(overTheForm.status).to.equal(413);
        expect(overTheForm.text).to.contain('Too large');
        expect(overTheForm.text).to.contain('attach fewer or smaller files');
        expect(overTheForm.headers.get('content-security-policy')).to.contain('default-src \'none\'');

        const tooMany = await send(manager, id, 'Four', [png('1.png'), png('2.png'), png('3.png'), png('4.png')]);
        expect(tooMany.status).to.equal(422);
        expect(tooMany.text).to.contain('A message carries at most 3 files');
        expect(tooMany.text).to.contain('>Four</textarea>');

        expect(await uploadRows(manager.actor.familyLongId)).to.equal(0);
        expect(filesOnDisk()).to.equal(before);
    });

    it('refuses files over the family\'s storage quota (413 quota_exceeded), removing the files of the same send already kept', async () => {

        const [manager, zoe] = await family(2);
        const id = await direct(manager, zoe);
        expect((await send(manager, id, 'First', [png('first.png', 60_000)])).status).to.equal(302);
        const before = filesOnDisk();

        const over = await send(manager, id, 'Second and third', [png('second.png', 20_000), png('third.png', 30_000)]);
        expect(over.status).to.equal(413);
        expect(over.text).to.contain('does not fit in the Family plan');
        expect(over.text).to.contain('>Second and third</textarea>');
        expect(await uploadRows(manager.actor.familyLongId)).to.equal(1);
        expect(filesOnDisk()).to.equal(before);
        expect(await storageUsed(models(), manager.actor.familyLongId)).to.equal(60_000);
    });

    it('refuses the multipart form without its CSRF token (403), storing nothing', async () => {

        const [manager, zoe] = await family(2);
        const id = await direct(manager, zoe);
        const before = filesOnDisk();
        const forged = await send(manager, id, 'Forged', [png('photo.png')], { crumb: false });
        expect(forged.status).to.equal(403);
        expect(await uploadRows(manager.actor.familyLongId)).to.equal(0);
        expect(filesOnDisk()).to.equal(before);
        expect(await models().Message.count({ where: { conversation_id: id } })).to.equal(0);
    });

    it('removes a message\'s files when it is deleted: the bytes go, the storage is freed, the link answers 404', async () => {

        const [manager, zoe] = await family(2);
        const id = await direct(manager, zoe);
        expect((await send(manager, id, 'Soon gone', [png('gone.png', 5000)])).status).to.equal(302);
        const [link] = attachmentLinks((await zoe.browser.get(`/messages/${id}`)).text);
        expect(filesOnDisk()).to.include(link.id);
        expect(await storageUsed(models(), manager.actor.familyLongId)).to.equal(5000);

        const message = await models().Message.findOne({ where: { conversation_id: id } });
        await manager.browser.get(`/messages/${id}`);
        const deleted = await manager.browser.post(`/messages/${id}/messages/${message!.id}/delete`, { revision: String(message!.revision) });
        expect(deleted.status).to.equal(302);
        expect(filesOnDisk()).to.not.include(link.id);
        expect(await storageUsed(models(), manager.actor.familyLongId)).to.equal(0);
        expect((await zoe.browser.get(link.href)).status).to.equal(404);
        expect(attachmentLinks((await zoe.browser.get(`/messages/${id}`)).text)).to.equal([]);
    });

    it('refuses a send to a person who blocked the sender, removing the files it had kept', async () => {

        const [manager, zoe] = await family(2);
        const id = await direct(manager, zoe);
        await zoe.browser.get(`/messages/${id}`);
        expect((await zoe.browser.post(`/messages/people/${manager.actor.userId}/block`, { conversation: id })).status).to.equal(302);
        const before = filesOnDisk();
        const refused = await send(manager, id, 'Please', [png('photo.png')]);
        expect(refused.status).to.equal(403);
        expect(await uploadRows(manager.actor.familyLongId)).to.equal(0);
        expect(filesOnDisk()).to.equal(before);
    });
});
