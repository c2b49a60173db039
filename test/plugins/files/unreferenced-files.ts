import Fs from 'fs';
import Path from 'path';

import type { Server } from '@hapi/hapi';
import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import { contentKey } from '../../../lib/storage';
import { LocalDiskStorage } from '../../../lib/storage/local-disk';
import { editPolicyFile, editedPolicies, loadErrorIn } from '../../helpers/policy-files';
import { copyPolicies, familyWithKey, testServer } from '../../helpers/server';
import { dataOf } from '../records/fixtures';
import { blobExists, blobPath, pathOf, sampleFile, sha256Of, upload } from './fixtures';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

const hourMs = 60 * 60 * 1000;

/** Sets the file's modification time `ms` in the past, as if written then. */
function age(server: Server, content: Buffer, ms: number): void {

    const then = new Date(Date.now() - ms);
    Fs.utimesSync(blobPath(server, content), then, then);
}

/** Stores `content` as an upload would, with no record: what a process that died before its transaction committed leaves behind. */
async function leftBehind(server: Server, content: Buffer, ageMs: number): Promise<void> {

    await new LocalDiskStorage(server.app.services.config.filesDir).put(content);
    age(server, content, ageMs);
}

/** Deletes the record's row only, as if the process stopped after its deletion committed and before the file was released. */
async function deleteRowOnly(server: Server, resource: 'gallery' | 'documents', id: string): Promise<void> {

    expect(await server.app.services.models.records[resource].destroy({ where: { id } })).to.equal(1);
}

describe('the sweep of unreferenced files', () => {

    let server: Server;

    before(async () => {

        server = await testServer();
    });

    after(async () => {

        await server.stop();
    });

    it('removes a stored file no record holds once it is older than the grace period, and says which', async () => {

        const file = sampleFile('png');
        await leftBehind(server, file, 2 * hourMs);

        const removed = await server.plugins.files.sweepUnreferencedFiles();

        expect(removed.map((blob) => blob.key)).to.equal([contentKey(sha256Of(file))]);
        expect(Date.now() - removed[0].modifiedAt.getTime()).to.be.within(2 * hourMs, 2 * hourMs + 60_000);
        expect(blobExists(server, file)).to.be.false();
        expect(await server.plugins.files.sweepUnreferencedFiles()).to.equal([]);
    });

    it('keeps a file a record holds, however old', async () => {

        const family = await familyWithKey(server);
        const file = sampleFile('png');
        const item = dataOf(await upload(family, 'gallery', file), 201);
        age(server, file, 30 * 24 * hourMs);

        expect(await server.plugins.files.sweepUnreferencedFiles()).to.equal([]);

        expect(blobExists(server, file)).to.be.true();
        expect((await server.inject(pathOf(item.url))).rawPayload).to.equal(file);
    });

    it('keeps a file no record holds yet while it is younger than the grace period: an upload may be under way', async () => {

        const fresh = sampleFile('pdf');
        const almostDue = sampleFile('pdf');
        await leftBehind(server, fresh, 0);
        await leftBehind(server, almostDue, hourMs - 60_000);

        expect(await server.plugins.files.sweepUnreferencedFiles()).to.equal([]);

        expect(blobExists(server, fresh)).to.be.true();
        expect(blobExists(server, almostDue)).to.be.true();
    });

    it('keeps a file two records share until neither holds it', async () => {

        const file = sampleFile('png');
        const smiths = await familyWithKey(server);
        const joneses = await familyWithKey(server);
        const theirs = dataOf(await upload(smiths, 'gallery', file), 201);
        const ours = dataOf(await upload(joneses, 'documents', file), 201);
        age(server, file, 2 * hourMs);

        await deleteRowOnly(server, 'gallery', theirs.id);
        expect(await server.plugins.files.sweepUnreferencedFiles()).to.equal([]);
        expect(blobExists(server, file)).to.be.true();

        await deleteRowOnly(server, 'documents', ours.id);
        expect((await server.plugins.files.sweepUnreferencedFiles()).map((blob) => blob.key)).to.equal([contentKey(sha256Of(file))]);
        expect(blobExists(server, file)).to.be.false();
    });

    it('removes only unreferenced files among many: the references are looked up in batches', async () => {

        const family = await familyWithKey(server);
        const kept = sampleFile('png');
        dataOf(await upload(family, 'gallery', kept), 201);
        age(server, kept, 2 * hourMs);
        // More than one batch of 500.
        const orphans = Array.from({ length: 520 }, () => sampleFile('pdf', 20));
        for (const orphan of orphans) {
            await leftBehind(server, orphan, 2 * hourMs);
        }

        const removed = await server.plugins.files.sweepUnreferencedFiles();

        expect(removed.map((blob) => blob.key).sort()).to.equal(orphans.map((orphan) => contentKey(sha256Of(orphan))).sort());
        expect(orphans.filter((orphan) => blobExists(server, orphan))).to.equal([]);
        expect(blobExists(server, kept)).to.be.true();
    });

    it('removes what a write cut short left behind once it is older than the grace period', async () => {

        const temporaryOf = (file: Buffer, ageMs: number) => {

            const temporary = `${blobPath(server, file)}.0123456789ab.tmp`;
            Fs.mkdirSync(Path.dirname(temporary), { recursive: true });
            Fs.writeFileSync(temporary, file.subarray(0, 10));
            const then = new Date(Date.now() - ageMs);
            Fs.utimesSync(temporary, then, then);
            return temporary;
        };

        const stale = temporaryOf(sampleFile('pdf'), 2 * hourMs);
        const underWay = temporaryOf(sampleFile('pdf'), 60_000);

        // Not blobs: the sweep resolves to the blobs it removed.
        expect(await server.plugins.files.sweepUnreferencedFiles()).to.equal([]);

        expect(Fs.existsSync(stale)).to.be.false();
        expect(Fs.existsSync(underWay)).to.be.true();
    });

    it('runs one sweep at a time: a call while one is under way joins it', async () => {

        const file = sampleFile('png');
        await leftBehind(server, file, 2 * hourMs);

        const [first, second] = await Promise.all([server.plugins.files.sweepUnreferencedFiles(), server.plugins.files.sweepUnreferencedFiles()]);

        expect(first.map((blob) => blob.key)).to.equal([contentKey(sha256Of(file))]);
        expect(second).to.shallow.equal(first);
    });

    it('lets an upload reuse a file the sweep is about to remove', async () => {

        const family = await familyWithKey(server);
        const file = sampleFile('png');
        await leftBehind(server, file, 2 * hourMs);

        const [, response] = await Promise.all([server.plugins.files.sweepUnreferencedFiles(), upload(family, 'gallery', file)]);

        // Whichever came first, the record's file is there.
        const item = dataOf(response, 201);
        expect(blobExists(server, file)).to.be.true();
        expect((await server.inject(pathOf(item.url))).rawPayload).to.equal(file);
    });
});

describe('the sweep\'s schedule', () => {

    it('sweeps on the schedule of files.yaml while the server runs, and stops with it', async () => {

        const policiesDir = copyPolicies();
        editPolicyFile(policiesDir, 'files.yaml', 'sweep_schedule: "37 * * * *"', 'sweep_schedule: "* * * * * *"');
        const server = await testServer({ policiesDir });
        const swept = sampleFile('png');
        await leftBehind(server, swept, 2 * hourMs);

        await server.start();
        try {
            for (let waited = 0; blobExists(server, swept) && waited < 5000; waited += 100) {
                await new Promise((resolve) => setTimeout(resolve, 100));
            }

            expect(blobExists(server, swept)).to.be.false();
        }
        finally {
            await server.stop();
        }

        const afterStop = sampleFile('png');
        await leftBehind(server, afterStop, 2 * hourMs);
        await new Promise((resolve) => setTimeout(resolve, 1500));
        expect(blobExists(server, afterStop)).to.be.true();
    });

    it('follows an edited schedule without a restart, like any policy edit', async () => {

        const policiesDir = copyPolicies();
        const server = await testServer({ policiesDir });
        const swept = sampleFile('png');
        await leftBehind(server, swept, 2 * hourMs);

        await server.start();
        try {
            // As shipped, hourly at :37: nothing happens in the next seconds (unless the hour turns 37 now).
            editPolicyFile(policiesDir, 'files.yaml', 'sweep_schedule: "37 * * * *"', 'sweep_schedule: "* * * * * *"');
            expect(server.app.services.policyStore.reload()).to.be.true();

            for (let waited = 0; blobExists(server, swept) && waited < 5000; waited += 100) {
                await new Promise((resolve) => setTimeout(resolve, 100));
            }

            expect(blobExists(server, swept)).to.be.false();

            // And back: every second no more.
            editPolicyFile(policiesDir, 'files.yaml', 'sweep_schedule: "* * * * * *"', 'sweep_schedule: "0 0 1 1 *"');
            expect(server.app.services.policyStore.reload()).to.be.true();
            const kept = sampleFile('png');
            await leftBehind(server, kept, 2 * hourMs);
            await new Promise((resolve) => setTimeout(resolve, 1500));
            expect(blobExists(server, kept)).to.be.true();
        }
        finally {
            await server.stop();
        }
    });

    it('is validated when the policies load: a cron expression, and a grace period of at least five minutes', () => {

        const badCron = editedPolicies('files.yaml', 'sweep_schedule: "37 * * * *"', 'sweep_schedule: "every hour"');
        expect(loadErrorIn(badCron, 'files.yaml')).to.equal('unreferenced_files.sweep_schedule: "every hour" is not a cron expression (e.g. "17 3 * * *": daily at 03:17)');

        const shortGrace = editedPolicies('files.yaml', 'grace_seconds: 3600', 'grace_seconds: 60');
        expect(loadErrorIn(shortGrace, 'files.yaml')).to.equal('unreferenced_files.grace_seconds: must be greater than or equal to 300');
    });
});
