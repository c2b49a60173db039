import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import { projectRoot } from '../../../lib/config';
import { acceptedMediaType } from '../../../plugins/files/media-types';
import { loadServicePolicies } from '../../helpers/policy-files';

export const lab = Lab.script();
const { describe, it } = lab;

const { files } = loadServicePolicies(Path.join(projectRoot, 'policies'));
const bytes = (hex: string, tail = '') => Buffer.concat([Buffer.from(hex.replace(/ /g, ''), 'hex'), Buffer.from(tail)]);

describe('acceptedMediaType()', () => {

    it('takes the declared type when the content is that type and the resource accepts it', () => {

        expect(acceptedMediaType(files, 'gallery', bytes('FF D8 FF E0'), 'IMAGE/JPEG ; x=y')).to.equal('image/jpeg');
        expect(acceptedMediaType(files, 'documents', Buffer.from('%PDF-1.7'))).to.equal('application/pdf');
    });

    it('refuses with 415 naming what the content looks like', () => {

        expect(() => acceptedMediaType(files, 'gallery', bytes('FF D8 FF E0'), 'image/png')).to.throw('The file was declared image/png, but its content looks like image/jpeg.');
        expect(() => acceptedMediaType(files, 'gallery', Buffer.from('plain words'))).to.throw('The file\'s content looks like text/plain; gallery accepts image/jpeg, image/png, image/gif, image/webp, image/heic, image/heif.');
    });
});
