import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';

import { foldForSearch, searchText } from '../../models/search-text';

export const lab = Lab.script();
const { describe, it } = lab;

describe('foldForSearch()', () => {

    it('drops case and accents, in every script', () => {

        expect(foldForSearch('Émile')).to.equal('emile');
        expect(foldForSearch('E\u0301MILE')).to.equal('emile');
        expect(foldForSearch('Müller Straße')).to.equal('muller strasse');
        expect(foldForSearch('ØSTERGAARD Łódź Đorđević')).to.equal('ostergaard lodz dordevic');
        expect(foldForSearch('Ἀλέξανδρος')).to.equal('αλεξανδροσ');
        expect(foldForSearch('ИВАН Ёлкин')).to.equal('иван елкин');
        expect(foldForSearch('IŞIK Işık İstanbul')).to.equal('isik isik istanbul');
        expect(foldForSearch('ﬁne ½')).to.equal('fine 1⁄2');
        expect(foldForSearch('家族 😀')).to.equal('家族 😀');
    });

    it('keeps the marks that are part of a word in other scripts', () => {

        expect(foldForSearch('हिन्दी')).to.equal('हिन्दी');
        expect(foldForSearch('がっこう')).to.not.equal(foldForSearch('かっこう'));
        expect(foldForSearch('ガ')).to.equal('ガ'.normalize('NFKD'));
    });

    it('folds a word cut short as it folds the text it was cut from', () => {

        for (const text of ['ΟΔΥΣΣΕΥΣ', 'Strauß', 'Østergaard', 'ÉMILE ZOLA']) {
            for (let end = 1; end <= text.length; ++end) {
                expect(foldForSearch(text).includes(foldForSearch(text.slice(0, end))), text.slice(0, end)).to.be.true();
            }
        }
    });

    it('keeps wildcards, backslashes and quotes as they are', () => {

        expect(foldForSearch('50%_A\\b\'"')).to.equal('50%_a\\b\'"');
    });
});

describe('searchText()', () => {

    it('folds each field, one a line, an empty or missing field an empty line', () => {

        expect(searchText({ first_name: 'Émile', last_name: null, notes: 'Two\nlines' }, ['first_name', 'last_name', 'birth_place', 'notes'])).to.equal('emile\n\n\ntwo\nlines');
    });
});
