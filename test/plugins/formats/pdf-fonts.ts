import Fs from 'fs';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { notoSansCjkPaths } from '../../../lib/config';
import { PdfFontSet, type FontWeight } from '../../../plugins/formats/pdf-fonts';
import { familyWithKey, testServer, type FamilyFixture } from '../../helpers/server';
import { dataOf } from '../records/fixtures';
import { drawnTexts, joined, noBoxes, notesColumn, notesLines, pdfPages, same, type DrawnText } from './pdf-text';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

/** The fonts a PDF embeds, by PostScript name without pdfkit's subset tag (`ABCDEF+`). */
function embeddedFonts(bytes: Buffer): string[] {

    return [...new Set([...bytes.toString('latin1').matchAll(/\/BaseFont \/[A-Z]{6}\+([\w-]+)/g)].map((match) => match[1]))].sort();
}

async function personsPdf(family: FamilyFixture): Promise<{ text: string; fonts: string[]; page: DrawnText[] }> {

    const response = await family.inject('GET', '/api/v1/persons?format=pdf&sort=first_name');
    expect(response.statusCode, response.payload).to.equal(200);
    return { text: (await pdfPages(response.rawPayload)).flat().join(' '), fonts: embeddedFonts(response.rawPayload), page: (await drawnTexts(response.rawPayload))[0] };
}

/** The fonts the page's emoji are drawn in. */
const emojiFonts = (page: DrawnText[]) => [...new Set(page.filter((drawn) => /\p{Extended_Pictographic}/u.test(drawn.text)).map((drawn) => drawn.font))];

/** The notes cell's text as drawn, its lines joined by spaces (they broke at spaces). */
const notesText = (page: DrawnText[], firstName: string) => notesLines(page, firstName).map(joined).join(' ');

/** `text` as runs of one font each, named by PostScript name, as `fonts` would draw it. */
function runsOf(fonts: PdfFontSet, text: string, weight: FontWeight = 'regular'): [string, string][] | string {

    const faces = fonts.facesFor(text, weight);
    return faces.runsOf ? faces.runsOf(text).map((run) => [run.text, run.face.font.postscriptName]) : faces.face.font.postscriptName;
}

/** Whether the tests of CJK text can run here; they are skipped, saying why, when not. */
const cjkFontInstalled = notoSansCjkPaths.some((path) => Fs.existsSync(path));
if (!cjkFontInstalled) {
    process.stdout.write('\nSkipping the PDF tests of Chinese, Japanese and Korean: Noto Sans CJK is missing (.ci/run installs Debian\'s fonts-noto-cjk).\n');
}

/** Whether the tests of the scripts' Noto Sans fonts can run here (the first and last of the default list, as .ci/run installs them). */
const scriptFontsInstalled = ['Devanagari', 'Thaana'].every((script) => Fs.existsSync(`/usr/share/fonts/truetype/noto/NotoSans${script}-Regular.ttf`));
if (!scriptFontsInstalled) {
    process.stdout.write('\nSkipping the PDF tests of Indic scripts and Thai: Noto Sans of those scripts is missing (.ci/run installs Debian\'s fonts-noto-core).\n');
}

const cjkPersons = [
    { first_name: '小明', last_name: '王', birth_place: '北京' },              // Chinese: Simplified Chinese forms
    { first_name: 'はなこ', last_name: '山田', birth_place: '東京' },          // kana: Japanese forms
    { first_name: '민준', last_name: '김', birth_place: '서울' }               // Hangul: Korean forms
];

describe('format=pdf fonts', () => {

    describe('with Noto Sans CJK installed (the default fallback font where a distribution puts it)', { skip: !cjkFontInstalled }, () => {

        let server: Server;

        before(async () => {

            server = await testServer();
        });

        after(() => server.stop());

        it('draws Chinese, Japanese and Korean names with it, each in its region\'s forms, and Latin with DejaVu Sans', async () => {

            const family = await familyWithKey(server);
            for (const person of [...cjkPersons, { first_name: 'Zoë', last_name: 'Müller' }]) {
                dataOf(await family.inject('POST', '/api/v1/persons', person), 201);
            }

            const { text, fonts } = await personsPdf(family);
            expect(text).to.include(['小明', '王', '北京', 'はなこ', '山田', '東京', '민준', '김', '서울', 'Zoë', 'Müller']);
            expect(fonts).to.equal(['DejaVuSans', 'DejaVuSans-Bold', 'NotoSansCJKjp-Regular', 'NotoSansCJKkr-Regular', 'NotoSansCJKsc-Regular']);
        });

        it('embeds no fallback font when DejaVu Sans draws everything', async () => {

            const family = await familyWithKey(server);
            dataOf(await family.inject('POST', '/api/v1/persons', { first_name: 'Ελένη', last_name: 'Иванова', notes: 'Łódź, Ørsted, Straße' }), 201);
            expect((await personsPdf(family)).fonts).to.equal(['DejaVuSans', 'DejaVuSans-Bold']);
        });

        it('draws Chinese with emoji in one cell: each in its font, on one baseline', async () => {

            const family = await familyWithKey(server);
            dataOf(await family.inject('POST', '/api/v1/persons', { first_name: 'Wang', last_name: '王', notes: '生日快乐 🎂' }), 201);

            const { fonts, page } = await personsPdf(family);
            expect(fonts).to.equal(['DejaVuSans', 'DejaVuSans-Bold', 'NotoEmoji-Regular', 'NotoSansCJKsc-Regular']);
            const [line, ...more] = notesLines(page, 'Wang');
            expect(more).to.equal([]);
            expect(line.map((drawn) => [drawn.text, drawn.font])).to.equal([['生日快乐', 'NotoSansCJKsc-Regular'], [' ', 'DejaVuSans'], ['🎂', 'NotoEmoji-Regular']]);
            noBoxes(page);
        });

        it('splits Chinese with emoji by font, Han in the forms the whole text asks for', () => {

            const fonts = new PdfFontSet(notoSansCjkPaths.filter((path) => Fs.existsSync(path)).slice(0, 1));
            expect(runsOf(fonts, '王 Wang')).to.equal('NotoSansCJKsc-Regular');             // one font has it all: as before
            expect(runsOf(fonts, '生日 🎂')).to.equal([['生日', 'NotoSansCJKsc-Regular'], [' ', 'DejaVuSans'], ['🎂', 'NotoEmoji-Regular']]);

            // A line of a wrapped text holding no kana still takes the Japanese forms of the text it is part of.
            const faces = fonts.facesFor('山田 はなこ 🎂', 'regular');
            expect(faces.runsOf!('山田').map((run) => run.face.font.postscriptName)).to.equal(['NotoSansCJKjp-Regular']);
        });

        it('draws a Chinese family name under the title and at every page\'s foot', async () => {

            const family = await familyWithKey(server);
            await server.app.services.models.Family.update({ name: '王家' }, { where: { family_long_id: family.familyLongId } });
            dataOf(await family.inject('POST', '/api/v1/persons', { first_name: 'Ada', last_name: 'Berg' }), 201);

            const { text, fonts } = await personsPdf(family);
            expect(text).to.include(['王家 · generated', 'Persons · 王家']);
            expect(fonts).to.include('NotoSansCJKsc-Regular');
        });
    });

    describe('with the Noto Sans fonts of fonts-noto-core installed (default fallback fonts too)', { skip: !scriptFontsInstalled }, () => {

        let server: Server;

        before(async () => {

            server = await testServer();
        });

        after(() => server.stop());

        it('draws Hindi, Bengali, Tamil, Thai and Amharic names with their script\'s font, shaped, and Latin among them with DejaVu Sans', async () => {

            const family = await familyWithKey(server);
            for (const person of [
                { first_name: 'अनिल', last_name: 'शर्मा', birth_place: 'दिल्ली', notes: 'क्षत्रिय परिवार, born 1950' },
                { first_name: 'রবীন্দ্রনাথ', last_name: 'ঠাকুর' },
                { first_name: 'முருகன்', last_name: 'சுப்பிரமணியம்', birth_place: 'சென்னை' },
                { first_name: 'สมชาย', last_name: 'ใจดี' },
                { first_name: 'አበበ', last_name: 'ቢቂላ' }
            ]) {
                dataOf(await family.inject('POST', '/api/v1/persons', person), 201);
            }

            const { fonts, page } = await personsPdf(family);
            expect(fonts).to.equal(['DejaVuSans', 'DejaVuSans-Bold', 'NotoSansBengali-Regular', 'NotoSansDevanagari-Regular', 'NotoSansEthiopic-Regular', 'NotoSansTamil-Regular', 'NotoSansThai-Regular']);
            noBoxes(page);
            // Shaped, not drawn letter by letter: the vowel sign ि is drawn before the consonant it follows, and
            // क्षत्रिय (8 characters) is 4 glyphs: the conjuncts क्ष and त्र, ि, य.
            const devanagari = page.filter((drawn) => drawn.font === 'NotoSansDevanagari-Regular');
            expect(devanagari.map((drawn) => drawn.text)).to.include('अिनल');
            expect(devanagari.find((drawn) => drawn.text.startsWith('क्ष'))!.glyphs).to.have.length(4);
            // A word too wide for its column (சென்னை in the birth place column) breaks between characters with their
            // marks: a vowel sign cut off its consonant would start the next line, drawn on a dotted circle (U+25CC).
            expect(page.map((drawn) => drawn.text).join('')).to.not.contain('\u25cc');
            expect(page.filter((drawn) => drawn.font === 'DejaVuSans').map((drawn) => drawn.text).join(' ')).to.contain('born 1950');
        });
    });

    it('draws with DejaVu Sans alone when PDF_FALLBACK_FONTS is empty', async () => {

        const server = await testServer({ env: { PDF_FALLBACK_FONTS: '' } });
        try {
            const family = await familyWithKey(server);
            dataOf(await family.inject('POST', '/api/v1/persons', cjkPersons[0]), 201);
            expect((await personsPdf(family)).fonts).to.equal(['DejaVuSans', 'DejaVuSans-Bold']);
        }
        finally {
            await server.stop();
        }
    });

    describe('emoji', () => {

        let server: Server;

        before(async () => {

            server = await testServer();
        });

        after(() => server.stop());

        it('draws emoji among Latin in Noto Emoji and the rest in DejaVu Sans, in reading order, without a missing-glyph box', async () => {

            const family = await familyWithKey(server);
            const notes = 'Grandma\'s 90th 🎂 and Zoë 🌸';
            dataOf(await family.inject('POST', '/api/v1/persons', { first_name: 'Zoë 🌸', last_name: 'Berg', notes }), 201);

            const { text, fonts, page } = await personsPdf(family);
            expect(fonts).to.equal(['DejaVuSans', 'DejaVuSans-Bold', 'NotoEmoji-Regular']);
            expect(notesText(page, 'Zoë ')).to.equal(notes);
            expect(text.replace(/\s+/g, ' ')).to.contain(`Zoë 🌸 Berg unknown ${notes}`);            // pdf.js's text extraction, in reading order
            expect(emojiFonts(page)).to.equal(['NotoEmoji-Regular']);
            noBoxes(page);
        });

        it('keeps an emoji with its skin tone, joined emoji and a keycap whole, in Noto Emoji', () => {

            const fonts = new PdfFontSet([]);
            expect(runsOf(fonts, 'Farmer 👩‍🌾, 👍🏽 1️⃣')).to.equal([['Farmer ', 'DejaVuSans'], ['👩‍🌾', 'NotoEmoji-Regular'], [', ', 'DejaVuSans'], ['👍🏽', 'NotoEmoji-Regular'], [' ', 'DejaVuSans'], ['1️⃣', 'NotoEmoji-Regular']]);

            // Emoji alone are runs too: Noto Emoji has no `…` for pdfkit to end a cut cell with, and its space is an emoji wide.
            expect(runsOf(fonts, '🎂 🌸')).to.equal([['🎂', 'NotoEmoji-Regular'], [' ', 'DejaVuSans'], ['🌸', 'NotoEmoji-Regular']]);
        });

        it('leaves to pdfkit, in one font, a text one font draws, and one no font draws better', () => {

            const fonts = new PdfFontSet([]);
            for (const text of ['Zoë Müller, Łódź', 'Ελένη Иванова', 'שלום', 'Zoë 😀', '']) {
                expect(runsOf(fonts, text), text).to.equal('DejaVuSans');              // DejaVu Sans has a few emoji (😀) of its own
            }

            expect(runsOf(fonts, '小明')).to.equal('DejaVuSans');                  // no CJK font: boxes, as before
            expect(runsOf(fonts, 'Title 🎂', 'bold')).to.equal([['Title ', 'DejaVuSans-Bold'], ['🎂', 'NotoEmoji-Regular']]);
        });

        it('wraps a long note of Latin and emoji within its column and cuts it after 12 lines with …', async () => {

            const family = await familyWithKey(server);
            const notes = Array.from({ length: 300 }, (_, index) => `word${index} 🎂🌸`).join(' ');
            dataOf(await family.inject('POST', '/api/v1/persons', { first_name: 'Long', last_name: 'Berg', notes }), 201);

            const { page } = await personsPdf(family);
            const { left, right } = notesColumn(page);
            const lines = notesLines(page, 'Long');
            expect(lines).to.have.length(12);
            for (const line of lines) {
                expect(same(line[0].x, left)).to.be.true();
                const end = line.at(-1)!;
                expect(end.x + end.width).to.be.at.most(right - 5 + 0.01);       // within the cell's padding
                expect(line.map((drawn) => drawn.font)).to.include('NotoEmoji-Regular');
            }

            const shown = lines.map(joined).join(' ');
            expect(shown).to.endWith('…');
            expect(notes.startsWith(shown.slice(0, -1).trimEnd())).to.be.true();
            noBoxes(page);
        });

        it('draws an emoji in the family\'s name under the title and at every page\'s foot', async () => {

            const family = await familyWithKey(server);
            await server.app.services.models.Family.update({ name: 'Berg 🌸' }, { where: { family_long_id: family.familyLongId } });
            dataOf(await family.inject('POST', '/api/v1/persons', { first_name: 'Ada', last_name: 'Berg' }), 201);

            const { page } = await personsPdf(family);
            const lineOf = (piece: DrawnText) => page.filter((drawn) => same(drawn.y, piece.y) && drawn.text !== 'Page 1').sort((a, b) => a.x - b.x);
            expect(joined(lineOf(page.find((drawn) => drawn.text.startsWith('Berg'))!))).to.match(/^Berg 🌸 · generated \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
            expect(joined(lineOf(page.find((drawn) => drawn.text.startsWith('Persons ·'))!))).to.equal('Persons · Berg 🌸');
            expect(emojiFonts(page)).to.equal(['NotoEmoji-Regular']);
            noBoxes(page);
        });

        it('embeds DejaVu Sans alone for text it draws alone', async () => {

            const family = await familyWithKey(server);
            dataOf(await family.inject('POST', '/api/v1/persons', { first_name: 'Zoë', last_name: 'Müller', notes: 'Łódź, Ørsted, Straße; Ελένη Иванова' }), 201);
            expect((await personsPdf(family)).fonts).to.equal(['DejaVuSans', 'DejaVuSans-Bold']);
        });
    });
});
