import Fs from 'fs';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { usualFallbackFontPaths } from '../../../lib/config';
import { familyWithKey, testServer, type FamilyFixture } from '../../helpers/server';
import { dataOf } from '../records/fixtures';
import { pdfPages } from './pdf-text';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

/** The fonts a PDF embeds, by PostScript name without pdfkit's subset tag (`ABCDEF+`). */
function embeddedFonts(bytes: Buffer): string[] {

    return [...new Set([...bytes.toString('latin1').matchAll(/\/BaseFont \/[A-Z]{6}\+([\w-]+)/g)].map((match) => match[1]))].sort();
}

async function personsPdf(family: FamilyFixture): Promise<{ text: string; fonts: string[] }> {

    const response = await family.inject('GET', '/api/v1/persons?format=pdf&sort=first_name');
    expect(response.statusCode, response.payload).to.equal(200);
    return { text: (await pdfPages(response.rawPayload)).flat().join(' '), fonts: embeddedFonts(response.rawPayload) };
}

/** Whether the tests of CJK text can run here; they are skipped, saying why, when not. */
const cjkFontInstalled = usualFallbackFontPaths.some((path) => Fs.existsSync(path));
if (!cjkFontInstalled) {
    process.stdout.write('\nSkipping the PDF tests of Chinese, Japanese and Korean: Noto Sans CJK is missing (.ci/run installs Debian\'s fonts-noto-cjk).\n');
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

        it('draws a Chinese family name under the title and at every page\'s foot', async () => {

            const family = await familyWithKey(server);
            await server.app.services.models.Family.update({ name: '王家' }, { where: { family_long_id: family.familyLongId } });
            dataOf(await family.inject('POST', '/api/v1/persons', { first_name: 'Ada', last_name: 'Berg' }), 201);

            const { text, fonts } = await personsPdf(family);
            expect(text).to.include(['王家 · generated', 'Persons · 王家']);
            expect(fonts).to.include('NotoSansCJKsc-Regular');
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
});
