import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import { preferredMediaType } from '../../lib/accept';

export const lab = Lab.script();
const { describe, it } = lab;

const offered = ['application/json', 'text/csv', 'text/html', 'application/pdf', 'text/vnd.familysearch.gedcom'];

describe('preferredMediaType()', () => {

    it('gives the default, the first offered, when the client states no preference', () => {

        for (const accept of [undefined, '', ' ', '*/*', '*/*;q=0.3', 'not a media type', 'text', '*/csv', 'text/csv;q=2', 'text/csv;q=0.0001', 'a/b/c']) {
            expect(preferredMediaType(accept, offered), String(accept)).to.equal('application/json');
        }
    });

    it('takes the media type named, whatever its case and parameters', () => {

        expect(preferredMediaType('text/csv', offered)).to.equal('text/csv');
        expect(preferredMediaType('TEXT/CSV; charset=utf-8', offered)).to.equal('text/csv');
        expect(preferredMediaType('application/pdf', offered)).to.equal('application/pdf');
        expect(preferredMediaType('text/vnd.familysearch.gedcom', offered)).to.equal('text/vnd.familysearch.gedcom');
        expect(preferredMediaType('application/json', offered)).to.equal('application/json');
    });

    it('weighs by q-values, then by the more specific range, then in the order offered', () => {

        expect(preferredMediaType('application/json;q=0.5, text/csv', offered)).to.equal('text/csv');
        expect(preferredMediaType('text/csv;q=0.4, text/html;q=0.8', offered)).to.equal('text/html');
        expect(preferredMediaType('text/csv, */*', offered)).to.equal('text/csv');
        expect(preferredMediaType('*/*, text/html', offered)).to.equal('text/html');
        expect(preferredMediaType('text/*', offered)).to.equal('text/csv');
        expect(preferredMediaType('text/*, text/csv;q=0', offered)).to.equal('text/html');
        expect(preferredMediaType('application/*;q=0.9, text/html;q=0.1', offered)).to.equal('application/json');
        expect(preferredMediaType('text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', offered)).to.equal('text/html');
        expect(preferredMediaType('application/json;q=0, */*', offered)).to.equal('text/csv');
        expect(preferredMediaType('text/csv;q=0.5;level=1, application/pdf;q=0.50', offered)).to.equal('text/csv');
    });

    it('gives nothing when every offered type is refused or left unnamed', () => {

        expect(preferredMediaType('application/xml', offered)).to.be.undefined();
        expect(preferredMediaType('image/*', offered)).to.be.undefined();
        expect(preferredMediaType('*/*;q=0', offered)).to.be.undefined();
        expect(preferredMediaType('application/json;q=0, text/*;q=0, application/pdf;q=0', offered)).to.be.undefined();
        expect(preferredMediaType('application/xml, nonsense', offered)).to.be.undefined();
    });
});
