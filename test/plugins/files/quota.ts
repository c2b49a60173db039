import Fs from 'fs';
import Path from 'path';

import type { Server } from '@hapi/hapi';
import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import { copyPolicies, familyWithKey, testServer } from '../../helpers/server';
import { dataOf, expectError } from '../records/fixtures';
import { blobExists, pathOf, sampleFile, sampleText, upload } from './fixtures';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

const MAX_UPLOAD = 1000;
const QUOTA = 3000;

/** The shipped policies with tiny limits: uploads up to 1000 bytes and 3000 bytes of storage, on every plan but `max`, which has none. */
function smallLimits(): string {

    const dir = copyPolicies();
    const plans = Path.join(dir, 'plans.yaml');
    const text = Fs.readFileSync(plans, 'utf8')
        .replace(/max_upload_bytes: \d+/g, `max_upload_bytes: ${MAX_UPLOAD}`)
        .replace(/storage_quota_bytes: \d+/g, `storage_quota_bytes: ${QUOTA}`)
        .replace(/(name: max\n(?:.*\n)*?)    max_upload_bytes: \d+.*\n    storage_quota_bytes: \d+.*\n/, '$1');
    Fs.writeFileSync(plans, text);
    return dir;
}

describe('upload limits and storage quotas', () => {

    let server: Server;

    before(async () => {

        server = await testServer({ policiesDir: smallLimits() });
        expect(server.app.services.policyStore.current().plans.get('max')!.max_upload_bytes).to.be.undefined();
    });

    after(async () => {

        await server.stop();
    });

    it('accepts a file of exactly the plan\'s limit and refuses one byte more (413 too_large)', async () => {

        const family = await familyWithKey(server);

        dataOf(await upload(family, 'gallery', sampleFile('png', MAX_UPLOAD)), 201);
        expectError(await upload(family, 'gallery', sampleFile('png', MAX_UPLOAD + 1)), 413, 'too_large', 'The file is 1001 bytes; the Family plan accepts files up to 1000 bytes');
    });

    it('refuses uploads on a plan without upload limits', async () => {

        const family = await familyWithKey(server, { plan: 'max' });
        expectError(await upload(family, 'documents', sampleText(10)), 413, 'too_large', 'The Max plan does not include file uploads.');
    });

    it('refuses a body larger than any plan\'s upload could be before reading it all (413 too_large)', async () => {

        const family = await familyWithKey(server);
        const huge = await family.inject('POST', '/api/v1/gallery', { title: 'x', original_name: 'x.png', file_base64: 'A'.repeat(200_000) });
        expectError(huge, 413, 'too_large');
    });

    it('follows a plan limit raised or lowered in plans.yaml without a restart, in the body limit too', async () => {

        const policiesDir = smallLimits();
        const edited = await testServer({ policiesDir });
        try {
            const family = await familyWithKey(edited);
            const large = sampleFile('png', 150_000);          // its body is far beyond what a 1000-byte limit lets hapi read
            expectError(await upload(family, 'gallery', large), 413, 'too_large');

            const plans = Path.join(policiesDir, 'plans.yaml');
            const small = Fs.readFileSync(plans, 'utf8');
            Fs.writeFileSync(plans, small.replace(/max_upload_bytes: \d+/g, 'max_upload_bytes: 200000').replace(/storage_quota_bytes: \d+/g, 'storage_quota_bytes: 1000000'));
            expect(edited.app.services.policyStore.reload()).to.be.true();
            dataOf(await upload(family, 'gallery', large), 201);

            Fs.writeFileSync(plans, small);
            expect(edited.app.services.policyStore.reload()).to.be.true();
            const huge = await family.inject('POST', '/api/v1/gallery', { title: 'x', original_name: 'x.png', file_base64: 'A'.repeat(200_000) });
            // Refused by hapi before the body is read, at the limit of the plans in force again.
            expectError(huge, 413, 'too_large', 'greater than maximum allowed: 66914');
        }
        finally {
            await edited.stop();
        }
    });

    it('accepts a file of the largest plan\'s limit from a JSON encoder that escapes "/" as "\\/" (PHP\'s json_encode)', async () => {

        const policiesDir = copyPolicies();
        const plans = Path.join(policiesDir, 'plans.yaml');
        const limit = 4 * 1024 * 1024;
        Fs.writeFileSync(plans, Fs.readFileSync(plans, 'utf8').replace(/max_upload_bytes: \d+/g, `max_upload_bytes: ${limit}`));
        const fourMiB = await testServer({ policiesDir });
        try {
            const family = await familyWithKey(fourMiB);
            // Random bytes, as in any compressed picture: about one base64 character in 64 is a "/".
            const body = JSON.stringify({ title: 'Scan', original_name: 'scan.jpg', file_base64: sampleFile('jpeg', limit).toString('base64') }).replace(/\//g, '\\/');

            const created = dataOf(await family.inject('POST', '/api/v1/gallery', body, { 'content-type': 'application/json' }), 201);
            expect(created.size_bytes).to.equal(limit);
        }
        finally {
            await fourMiB.stop();
        }
    });

    it('fills the quota to the byte, gallery and documents together, then refuses the next byte (413 quota_exceeded)', async () => {

        const family = await familyWithKey(server);

        dataOf(await upload(family, 'gallery', sampleFile('png', 1000)), 201);
        dataOf(await upload(family, 'documents', sampleFile('pdf', 1000)), 201);
        dataOf(await upload(family, 'documents', sampleText(999)), 201);
        dataOf(await upload(family, 'documents', sampleText(1)), 201);                 // exactly the quota

        const refused = await upload(family, 'documents', sampleText(1));
        expectError(refused, 413, 'quota_exceeded', 'does not fit in the Family plan\'s storage of 3000 bytes (2.9 KiB): 0 bytes is left');
        expect(dataOf(await family.inject('GET', '/api/v1/documents')).length).to.equal(3);
    });

    it('counts every record\'s file, even when families or records share the stored content', async () => {

        const family = await familyWithKey(server);
        const file = sampleFile('png', 1000);

        for (let copy = 0; copy < 3; ++copy) {
            dataOf(await upload(family, 'gallery', file), 201);
        }

        expectError(await upload(family, 'gallery', file), 413, 'quota_exceeded');
        dataOf(await upload(await familyWithKey(server), 'gallery', file), 201);      // another family's quota is its own
    });

    it('lets concurrent uploads fill the quota but never overshoot it', async () => {

        const family = await familyWithKey(server);
        const outcomes = await Promise.all(Array.from({ length: 7 }, () => upload(family, 'gallery', sampleFile('jpeg', 1000))));

        expect(outcomes.map((response) => response.statusCode).sort()).to.equal([201, 201, 201, 413, 413, 413, 413]);
        const stored = dataOf(await family.inject('GET', '/api/v1/gallery'));
        expect(stored.reduce((sum: number, record: { size_bytes: number }) => sum + record.size_bytes, 0)).to.equal(QUOTA);
    });

    it('leaves no stored file behind when the quota refuses an upload', async () => {

        const family = await familyWithKey(server);
        for (let upload_ = 0; upload_ < 3; ++upload_) {
            dataOf(await upload(family, 'gallery', sampleFile('png', 1000)), 201);
        }

        const refused = sampleFile('png', 10);
        expectError(await upload(family, 'gallery', refused), 413, 'quota_exceeded');
        expect(blobExists(server, refused)).to.be.false();
    });

    it('frees a record\'s share when it is deleted', async () => {

        const family = await familyWithKey(server);
        const ids: string[] = [];
        for (let upload_ = 0; upload_ < 3; ++upload_) {
            ids.push(dataOf(await upload(family, 'documents', sampleText(1000)), 201).id);
        }

        expectError(await upload(family, 'gallery', sampleFile('png', 500)), 413, 'quota_exceeded');
        dataOf(await family.inject('DELETE', `/api/v1/documents/${ids[0]}`));
        dataOf(await upload(family, 'gallery', sampleFile('png', 1000)), 201);
    });

    it('removes a stored file with the last record that holds it, and not before', async () => {

        const file = sampleFile('png', 700);
        const smiths = await familyWithKey(server);
        const joneses = await familyWithKey(server);
        const first = dataOf(await upload(smiths, 'gallery', file), 201);
        const second = dataOf(await upload(smiths, 'documents', file), 201);
        const theirs = dataOf(await upload(joneses, 'gallery', file), 201);

        dataOf(await smiths.inject('DELETE', `/api/v1/gallery/${first.id}`));
        dataOf(await smiths.inject('DELETE', `/api/v1/documents/${second.id}`));

        expect(blobExists(server, file)).to.be.true();
        const served = await server.inject(pathOf(theirs.url));
        expect(served.statusCode).to.equal(200);
        expect(served.rawPayload).to.equal(file);

        dataOf(await joneses.inject('DELETE', `/api/v1/gallery/${theirs.id}`));
        expect(blobExists(server, file)).to.be.false();
    });
});
