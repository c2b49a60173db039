import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import { attachmentPolicy } from '../../../lib/accounts/messaging-policy';
import { projectRoot } from '../../../lib/config';
import { editedPolicies, loadErrorIn, loadServicePolicies } from '../../helpers/policy-files';

export const lab = Lab.script();
const { describe, it } = lab;

describe('policies/messaging.yaml: attachments and uploads', () => {

    it('loads each plan\'s attachment policy, Lite\'s included, and the uploads\' expiry and clean-up', () => {

        const { messaging } = loadServicePolicies(Path.join(projectRoot, 'policies'));
        expect(attachmentPolicy(messaging, 'lite')).to.equal({ name: 'lite', media_types: ['image/jpeg', 'image/png', 'image/gif', 'image/webp'], max_file_bytes: 5 * 2 ** 20 });
        expect(attachmentPolicy(messaging, 'max').max_file_bytes).to.equal(25 * 2 ** 20);
        expect(messaging.uploads).to.equal({ expire_after_minutes: 1440, unattached_minutes: 1440, cleanup_schedule: '0 */10 * * * *', form_max_files: 3 });
        expect(messaging.clients[0].default_scopes).to.include('files:write');
    });

    it('refuses a media type files.yaml does not declare', () => {

        const dir = editedPolicies('messaging.yaml', 'media_types: [image/jpeg, image/png, image/gif, image/webp]', 'media_types: [image/jpeg, video/mp4]');
        expect(loadErrorIn(dir, 'messaging.yaml')).to.contain('"video/mp4" is not a media type of files.yaml');
    });

    it('refuses a plan plans.yaml does not have, and a plan left out', () => {

        expect(loadErrorIn(editedPolicies('messaging.yaml', '    - name: lite\n      media_types', '    - name: gold\n      media_types'), 'messaging.yaml'))
            .to.contain('"gold" is not a plan of plans.yaml');
        const missing = editedPolicies('messaging.yaml', '    - name: lifetime\n      media_types: [image/jpeg, image/png, image/gif, image/webp, image/heic, image/heif, application/pdf, text/plain]\n      max_file_bytes: 26214400         # 25 MiB\n', '');
        expect(loadErrorIn(missing, 'messaging.yaml')).to.contain('must list every plan of plans.yaml; missing: lifetime');
    });

    it('refuses a schedule that is no cron expression', () => {

        expect(loadErrorIn(editedPolicies('messaging.yaml', 'cleanup_schedule: "0 */10 * * * *"', 'cleanup_schedule: "often"'), 'messaging.yaml')).to.contain('"often" is not a cron expression');
    });
});
