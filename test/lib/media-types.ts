import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import { projectRoot } from '../../lib/config';
import { detectMediaType } from '../../lib/media-types';
import { loadServicePolicies } from '../helpers/policy-files';

export const lab = Lab.script();
const { describe, it } = lab;

const { files } = loadServicePolicies(Path.join(projectRoot, 'policies'));
const bytes = (hex: string, tail = '') => Buffer.concat([Buffer.from(hex.replace(/ /g, ''), 'hex'), Buffer.from(tail)]);

describe('detectMediaType()', () => {

    it('recognises each shipped type by its signature, wildcards and offsets included', () => {

        expect(detectMediaType(files, bytes('FF D8 FF DB', 'jpeg data'))).to.equal('image/jpeg');
        expect(detectMediaType(files, bytes('89 50 4E 47 0D 0A 1A 0A 00'))).to.equal('image/png');
        expect(detectMediaType(files, Buffer.from('GIF87a....'))).to.equal('image/gif');
        expect(detectMediaType(files, Buffer.from('RIFF\x10\x20\x00\x00WEBPVP8 '))).to.equal('image/webp');
        expect(detectMediaType(files, bytes('00 00 00 18', 'ftypheic....'))).to.equal('image/heic');
        expect(detectMediaType(files, bytes('00 00 00 1C', 'ftypmif1....'))).to.equal('image/heif');
        expect(detectMediaType(files, Buffer.from('%PDF-1.4\n%âãÏÓ'))).to.equal('application/pdf');
    });

    it('takes UTF-8 without control characters as plain text, when no signature matched', () => {

        expect(detectMediaType(files, Buffer.from('Zoë\tSmith\r\n1952\f'))).to.equal('text/plain');
        expect(detectMediaType(files, Buffer.from('%PDF-1.4 even though it is text'))).to.equal('application/pdf');
        expect(detectMediaType(files, Buffer.from('with a \u0000 NUL'))).to.be.undefined();
        expect(detectMediaType(files, Buffer.from('escape \u001b[31m'))).to.be.undefined();
        expect(detectMediaType(files, Buffer.from([0x5a, 0x6f, 0xeb]))).to.be.undefined();      // Latin-1, not UTF-8
    });

    it('does not read past a short file', () => {

        expect(detectMediaType(files, Buffer.from([0xff, 0xd8]))).to.be.undefined();
        expect(detectMediaType(files, Buffer.from('RIFF1234'))).to.equal('text/plain');
    });
});
