import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { familyWithKey, testServer } from '../../helpers/server';
import { dataOf } from '../records/fixtures';
import { drawnTexts, joined, noBoxes, notesColumn, notesLines, same, type DrawnText } from './pdf-text';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('format=pdf with right-to-left text', () => {

    let server: Server;

    before(async () => {

        server = await testServer();
    });

    after(() => server.stop());

    /** Page 1 of the persons' PDF as drawn, after writing a person for each `[first_name, notes]`. */
    async function drawnPersons(people: [string, string][], familyName?: string): Promise<DrawnText[]> {

        const family = await familyWithKey(server);
        if (familyName) {
            await server.app.services.models.Family.update({ name: familyName }, { where: { family_long_id: family.familyLongId } });
        }

        for (const [firstName, notes] of people) {
            dataOf(await family.inject('POST', '/api/v1/persons', { first_name: firstName, last_name: 'Test', notes }), 201);
        }

        const response = await family.inject('GET', '/api/v1/persons?format=pdf');
        expect(response.statusCode, response.payload).to.equal(200);
        return (await drawnTexts(response.rawPayload))[0];
    }

    it('draws Hebrew and Arabic in visual order, with Latin words, dates and numbers among them left to right', async () => {

        // The characters as drawn from left to right: a right-to-left run reads backwards here.
        const cases: [string, string, string][] = [
            ['He', 'משה כהן', 'ןהכ השמ'],
            ['Ar', 'محمد علي', 'يلع دمحم'],
            ['LF', 'Cohen כהן', 'Cohen ןהכ'],
            ['HF', 'כהן Cohen', 'Cohen ןהכ'],
            ['Date', 'נולד 1920-05-03', '1920-05-03 דלונ'],
            ['Br', '(1920) נולד', 'דלונ (1920)'],             // mirrored: `(` on a right-to-left line shows as `)`
            ['ID', 'علي ١٩٢٠', '١٩٢٠ يلع']
        ];

        const page = await drawnPersons(cases.map(([firstName, notes]) => [firstName, notes]));
        for (const [firstName, , drawn] of cases) {
            const lines = notesLines(page, firstName);
            expect(lines, firstName).to.have.length(1);
            expect(joined(lines[0]), firstName).to.equal(drawn);
        }
    });

    it('aligns a cell right when its text starts right-to-left, left when it starts left-to-right', async () => {

        const page = await drawnPersons([['LF', 'Cohen כהן'], ['HF', 'כהן Cohen']]);
        const { left, right } = notesColumn(page);
        const [latinFirst] = notesLines(page, 'LF');
        const [hebrewFirst] = notesLines(page, 'HF');
        expect(same(latinFirst[0].x, left)).to.be.true();

        const end = hebrewFirst.at(-1)!;
        expect(hebrewFirst[0].x).to.be.above(left + 10);
        expect(right - (end.x + end.width)).to.be.within(4.9, 5.1);          // the cell's padding on either side
    });

    it('draws emoji among right-to-left text in Noto Emoji, in visual order, joined emoji kept whole', async () => {

        const page = await drawnPersons([['E', 'שלום 🎂 עולם'], ['Z', 'שלום 👩‍🌾']]);
        const { right } = notesColumn(page);
        const [cake, ...more] = notesLines(page, 'E');
        expect(more).to.equal([]);
        expect(cake.map((drawn) => [drawn.text, drawn.font])).to.equal([['םלוע ', 'DejaVuSans'], ['🎂', 'NotoEmoji-Regular'], [' םולש', 'DejaVuSans']]);
        expect(right - (cake[2].x + cake[2].width)).to.be.within(4.9, 5.1);

        const [[farmer, name]] = notesLines(page, 'Z');
        expect([farmer.text, farmer.font, farmer.glyphs.length]).to.equal(['👩‍🌾', 'NotoEmoji-Regular', 1]);          // one glyph: the joined emoji
        expect(name.text).to.equal(' םולש');
        noBoxes(page);
    });

    it('shapes Arabic: a letter takes its joining form', async () => {

        const page = await drawnPersons([['W', 'محمد'], ['L', 'م']]);
        const [[word]] = notesLines(page, 'W');
        const [[letter]] = notesLines(page, 'L');
        expect(word.text).to.equal('دمحم');
        const [, middleMeem, , initialMeem] = word.glyphs;
        expect(new Set([middleMeem, initialMeem, letter.glyphs[0]]).size).to.equal(3);
    });

    it('wraps right-to-left text and cuts it after 12 lines, each line in visual order and aligned right', async () => {

        const words = Array.from({ length: 400 }, (_, index) => ['אחת', 'שתיים', 'שלוש', 'ארבע'][index % 4]);
        const page = await drawnPersons([['L', words.join(' ')]]);
        const { right } = notesColumn(page);
        const lines = notesLines(page, 'L');
        expect(lines).to.have.length(12);
        for (const line of lines) {
            const end = line.at(-1)!;
            expect(right - (end.x + end.width)).to.be.within(4.9, 5.1);
        }

        // Read right to left, the lines are the text from its start, cut with `…` at the end of the last (its left).
        const read = lines.map((line) => Array.from(joined(line)).reverse().join(''));
        expect(read[11]).to.endWith('…');
        expect(words.join(' ').startsWith(read.join(' ').slice(0, -1).trimEnd())).to.be.true();
    });

    it('cuts an unbroken right-to-left value far wider than its column in a moment', { timeout: 10_000 }, async () => {

        const page = await drawnPersons([['U', 'א'.repeat(16_000)]]);
        const lines = notesLines(page, 'U');
        expect(lines).to.have.length(12);
        expect(lines.slice(0, -1).every((line) => /^א+$/.test(joined(line)))).to.be.true();
        expect(joined(lines[11])).to.match(/^…א+$/);
    });

    it('draws a right-to-left family name in visual order in the heading and the foot, which stay left-to-right lines', async () => {

        const page = await drawnPersons([['Ada', 'Berg']], 'משפחת כהן');
        const lineOf = (piece: DrawnText) => page.filter((drawn) => same(drawn.y, piece.y) && drawn.text !== 'Page 1').sort((a, b) => a.x - b.x);

        const heading = lineOf(page.find((drawn) => drawn.text.includes('generated'))!);
        expect(heading[0].x).to.equal(36);
        expect(joined(heading)).to.match(/^ןהכ תחפשמ · generated \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);

        const foot = lineOf(page.find((drawn) => drawn.text.startsWith('Persons ·'))!);
        expect(joined(foot)).to.equal('Persons · ןהכ תחפשמ');
    });
});
