import Fs from 'fs';
import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import { projectRoot } from '../../../lib/config';
import { copyPolicies } from '../../helpers/server';
import { editedPolicies, loadError, loadServicePolicies, policiesWithout, policyFileNames } from '../../helpers/policy-files';

export const lab = Lab.script();
const { describe, it } = lab;

describe('loadServicePolicies(): files.yaml', () => {

    it('loads the shipped media types, parsing signatures to bytes (null for ??)', () => {

        const { files } = loadServicePolicies(Path.join(projectRoot, 'policies'));

        expect(files.media_types.find((type) => type.name === 'image/jpeg')).to.equal({ name: 'image/jpeg', extensions: ['.jpg', '.jpeg', '.jpe', '.jfif'], signatures: [{ offset: 0, bytes: [0xff, 0xd8, 0xff] }] });
        expect(files.media_types.find((type) => type.name === 'image/webp')!.signatures![0].bytes).to.equal([0x52, 0x49, 0x46, 0x46, null, null, null, null, 0x57, 0x45, 0x42, 0x50]);
        expect(files.media_types.find((type) => type.name === 'image/heic')!.signatures![0].offset).to.equal(4);
        expect(files.media_types.find((type) => type.name === 'text/plain')).to.equal({ name: 'text/plain', extensions: ['.txt', '.text', '.md', '.markdown', '.csv', '.tsv', '.ged', '.log'], utf8_text: true });
        expect(files.resources.map((resource) => resource.name)).to.equal(['gallery', 'documents']);
        expect(files.resources[0]).to.include({ disposition: 'inline', signed_url_seconds: 900 });
        expect(files.resources[1]).to.include({ disposition: 'attachment', signed_url_seconds: 60 });
        expect(files.resources[1].media_types).to.include(['application/pdf', 'text/plain']);
    });

    it('is watched and reloaded like the other policy files', () => {

        expect(policyFileNames).to.include('files.yaml');
    });

    it('refuses signature bytes that are not hex pairs', () => {

        for (const bytes of ['FF D8 F', 'FFD8FF', 'ZZ D8', '?? ??']) {
            const dir = editedPolicies('files.yaml', 'bytes: "FF D8 FF"', `bytes: "${bytes}"`);
            expect(loadError(dir)).to.equal(`${Path.join(dir, 'files.yaml')}: media_types[0].signatures[0].bytes: "${bytes}" must be hex bytes separated by spaces, ?? for any byte, at least one of them known (e.g. "FF D8 FF")`);
        }
    });

    it('refuses a media type with neither signatures nor utf8_text, or with both', () => {

        const neither = editedPolicies('files.yaml', '    utf8_text: true\n', '');
        expect(loadError(neither)).to.contain('media_types[7]: must contain at least one of [signatures, utf8_text]');

        const both = editedPolicies('files.yaml', '  - name: application/pdf\n', '  - name: application/pdf\n    utf8_text: true\n');
        expect(loadError(both)).to.contain('media_types[6]: contains a conflict between exclusive peers [signatures, utf8_text]');
    });

    it('refuses a media type without extensions, or with one that is not a lower-case extension', () => {

        const none = editedPolicies('files.yaml', '    extensions: [.png]\n', '');
        expect(loadError(none)).to.equal(`${Path.join(none, 'files.yaml')}: media_types[1].extensions: is required`);

        for (const extension of ['png', '.PNG', '.tar.gz', '.', `.${'x'.repeat(16)}`]) {
            const dir = editedPolicies('files.yaml', 'extensions: [.png]', `extensions: ["${extension}"]`);
            expect(loadError(dir), extension).to.contain('media_types[1].extensions[0]: ');
        }

        const repeated = editedPolicies('files.yaml', 'extensions: [.png]', 'extensions: [.png, .png]');
        expect(loadError(repeated)).to.contain('media_types[1].extensions[1]: ');
    });

    it('refuses a media type name that is not lower-case type/subtype', () => {

        const dir = editedPolicies('files.yaml', '  - name: image/png\n', '  - name: Image/PNG\n');
        expect(loadError(dir)).to.contain('media_types[1].name: "Image/PNG" is not a lower-case media type such as image/jpeg');
    });

    it('refuses a resource accepting a media type that is not declared', () => {

        const dir = editedPolicies('files.yaml', '[image/jpeg, image/png, image/gif', '[image/jpeg, image/svg+xml, image/gif');
        expect(loadError(dir)).to.equal(`${Path.join(dir, 'files.yaml')}: resources[0].media_types[1]: "image/svg+xml" is not declared in media_types`);
    });

    it('refuses a resource whose records carry no file', () => {

        const dir = editedPolicies('files.yaml', '  - name: gallery\n', '  - name: persons\n');
        expect(loadError(dir)).to.equal([
            `${Path.join(dir, 'files.yaml')}: resources[0].name: "persons" is not a resource whose records carry a file; those are [gallery, documents]`,
            `${Path.join(dir, 'files.yaml')}: resources: must list every resource whose records carry a file; missing: gallery`
        ].join('\n'));
    });

    it('refuses a files.yaml that leaves out a resource whose records carry a file', () => {

        const dir = copyPolicies();
        const path = Path.join(dir, 'files.yaml');
        const text = Fs.readFileSync(path, 'utf8');
        Fs.writeFileSync(path, text.slice(0, text.indexOf('  - name: documents')));

        expect(loadError(dir)).to.equal(`${path}: resources: must list every resource whose records carry a file; missing: documents`);
    });

    it('refuses a signed URL lifetime over a day, and an unknown disposition', () => {

        expect(loadError(editedPolicies('files.yaml', 'signed_url_seconds: 900', 'signed_url_seconds: 86401'))).to.contain('resources[0].signed_url_seconds: must be less than or equal to 86400');
        expect(loadError(editedPolicies('files.yaml', 'disposition: inline', 'disposition: embedded'))).to.contain('resources[0].disposition: must be one of [inline, attachment]');
    });

    it('refuses a missing files.yaml', () => {

        const dir = policiesWithout('files.yaml');
        expect(loadError(dir)).to.equal(`${Path.join(dir, 'files.yaml')}: file not found`);
    });
});

describe('loadServicePolicies(): upload limits in plans.yaml', () => {

    it('loads each plan\'s largest upload and storage quota; Lite\'s storage holds message attachments only', () => {

        const { plans } = loadServicePolicies(Path.join(projectRoot, 'policies'));

        expect(plans.get('family')).to.include({ max_upload_bytes: 10 * 2 ** 20, storage_quota_bytes: 2 ** 30 });
        expect(plans.get('max')).to.include({ max_upload_bytes: 25 * 2 ** 20, storage_quota_bytes: 10 * 2 ** 30 });
        expect(plans.get('lifetime')).to.include({ max_upload_bytes: 25 * 2 ** 20, storage_quota_bytes: 20 * 2 ** 30 });
        expect(plans.get('lite')).to.include({ max_upload_bytes: 0, storage_quota_bytes: 100 * 2 ** 20 });
    });

    it('refuses an upload limit above the storage quota', () => {

        const dir = editedPolicies('plans.yaml', 'max_upload_bytes: 10485760', 'max_upload_bytes: 2147483648');
        expect(loadError(dir)).to.equal(`${Path.join(dir, 'plans.yaml')}: plans[1].max_upload_bytes: must not be more than storage_quota_bytes`);
    });

    it('refuses one of the pair without the other', () => {

        const dir = editedPolicies('plans.yaml', '    storage_quota_bytes: 1073741824     # 1 GiB\n', '');
        expect(loadError(dir)).to.contain('plans[1]: contains [max_upload_bytes] without its required peers [storage_quota_bytes]');
    });

    it('refuses negative or fractional sizes', () => {

        expect(loadError(editedPolicies('plans.yaml', 'max_upload_bytes: 10485760', 'max_upload_bytes: -1'))).to.contain('plans[1].max_upload_bytes: must be greater than or equal to 0');
        expect(loadError(editedPolicies('plans.yaml', 'storage_quota_bytes: 1073741824', 'storage_quota_bytes: 1.5'))).to.contain('plans[1].storage_quota_bytes: must be an integer');
    });
});
