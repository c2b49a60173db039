import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import { contentDisposition, fileSlug } from '../../../plugins/formats/file-name';

export const lab = Lab.script();
const { describe, it } = lab;

const day = new Date('2026-11-21T23:59:59.000Z');

describe('fileSlug()', () => {

    it('keeps ASCII letters and digits, folds accents and joins the rest with dashes', () => {

        expect(fileSlug('The Smiths')).to.equal('the-smiths');
        expect(fileSlug('Zoë\'s Müller-Łukasz family (1900–2000)')).to.equal('zoes-muller-lukasz-family-1900-2000');
        expect(fileSlug('Østergaard & Strauß, Đorđević')).to.equal('ostergaard-strauss-dordevic');     // letters NFKD leaves whole, folded as search folds them
        expect(fileSlug('  ../../etc/passwd  ')).to.equal('etc-passwd');
        expect(fileSlug('"; filename=evil.exe')).to.equal('filename-evil-exe');
    });

    it('falls back to `family` when nothing is left, and stays short', () => {

        expect(fileSlug('山田家')).to.equal('family');
        expect(fileSlug('***')).to.equal('family');
        expect(fileSlug('a'.repeat(200))).to.have.length(60);
        expect(fileSlug(`${'a'.repeat(59)} b`)).to.equal('a'.repeat(59));
    });
});

describe('contentDisposition()', () => {

    it('names the file after the family, the resource and the UTC day', () => {

        expect(contentDisposition('attachment', 'The Smiths', 'persons', day, 'csv')).to.equal('attachment; filename="the-smiths-persons-2026-11-21.csv"');
        expect(contentDisposition('inline', 'The Smiths', 'all', day, 'html')).to.equal('inline; filename="the-smiths-all-2026-11-21.html"');
    });

    it('adds an RFC 5987 filename* keeping a non-ASCII family name', () => {

        expect(contentDisposition('attachment', 'Zoë\'s family', 'persons', day, 'pdf'))
            .to.equal('attachment; filename="zoes-family-persons-2026-11-21.pdf"; filename*=UTF-8\'\'Zo%C3%AB%27s%20family-persons-2026-11-21.pdf');
        expect(contentDisposition('attachment', '山田家', 'trees', day, 'ged'))
            .to.equal('attachment; filename="family-trees-2026-11-21.ged"; filename*=UTF-8\'\'%E5%B1%B1%E7%94%B0%E5%AE%B6-trees-2026-11-21.ged');
    });

    it('keeps path separators, quotes and control characters out of both names', () => {

        const header = contentDisposition('attachment', 'Ève/..\\"x"\r\nSet-Cookie: a=b', 'persons', day, 'csv');
        expect(header).to.not.contain('\r');
        expect(header).to.not.contain('\n');
        const encoded = decodeURIComponent(header.split('filename*=UTF-8\'\'')[1]);
        expect(encoded).to.not.match(/[/\\"\r\n]/);
        expect(header.split('"')).to.have.length(3);
    });

    it('drops characters that hide or reorder the name, as uploads do: a right-to-left override cannot fake an extension', () => {

        const spelled = (familyName: string) => decodeURIComponent(contentDisposition('attachment', familyName, 'persons', day, 'pdf').split('filename*=UTF-8\'\'')[1]);

        expect(spelled('Zoë \u202Efdp.exe')).to.equal('Zoë fdp.exe-persons-2026-11-21.pdf');
        expect(spelled('Zoë\u2066\u200F\u200B\u00AD\uFEFF\u0085\u009B\u2028\u2029 Berg')).to.equal('Zoë Berg-persons-2026-11-21.pdf');
        expect(spelled('خانواده\u200Cی رضایی')).to.equal('خانواده\u200Cی رضایی-persons-2026-11-21.pdf');         // a joiner spells the word
        expect(spelled('Zoë\u0000\u001B[31m')).to.equal('Zoë[31m-persons-2026-11-21.pdf');
    });

    it('cuts a long name between characters, never inside a surrogate pair', () => {

        const name = `${'ë'.repeat(99)}😀😀`;
        const header = contentDisposition('attachment', name, 'trees', day, 'csv');
        expect(decodeURIComponent(header.split('filename*=UTF-8\'\'')[1])).to.equal(`${'ë'.repeat(99)}😀-trees-2026-11-21.csv`);
    });

    it('keeps the whole file name within the 255 bytes a file system takes, cutting between grapheme clusters', () => {

        const saved = (name: string) => decodeURIComponent(contentDisposition('attachment', name, 'trees', day, 'csv').split('filename*=UTF-8\'\'')[1]);
        // 100 characters of 3 bytes each would make 321 bytes with `-trees-2026-11-21.csv`.
        expect(saved('山'.repeat(100))).to.equal(`${'山'.repeat(78)}-trees-2026-11-21.csv`);
        expect(Buffer.byteLength(saved('山'.repeat(100)))).to.be.at.most(255);
        // A joined emoji (18 bytes) that does not fit whole is left out whole; the space before it goes too.
        expect(saved(`${'山'.repeat(73)} 👨‍👩‍👧`)).to.equal(`${'山'.repeat(73)}-trees-2026-11-21.csv`);
        expect(saved(`${'山'.repeat(70)} 👨‍👩‍👧`)).to.equal(`${'山'.repeat(70)} 👨‍👩‍👧-trees-2026-11-21.csv`);
    });
});
