import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';
import type { Browser } from 'playwright-core';

import { chromiumAvailable, launchChromium } from '../helpers/chromium';
import { familyWithKey, testServer, type FamilyFixture } from '../helpers/server';
import { exportText } from '../plugins/formats/helpers';
import { dataOf } from '../plugins/records/fixtures';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

/* The HTML export as Chromium prints it: a page is only printable if its columns stay readable. */

describe('HTML export printed in Chromium', { skip: !chromiumAvailable, timeout: 120_000 }, () => {

    let server: Server;
    let browser: Browser;
    let family: FamilyFixture;

    before(async () => {

        server = await testServer();
        family = await familyWithKey(server);
        browser = await launchChromium();
    });

    after(async () => {

        await browser?.close();
        await server?.stop();
    });

    it('keeps every column readable on a printed page: ids and long notes are not squeezed to their header\'s width, many columns print landscape', async () => {

        dataOf(await family.inject('POST', '/api/v1/persons', { first_name: 'Anna', last_name: 'Ström', notes: 'x'.repeat(2000) }), 201);
        const { text } = await exportText(family, '/api/v1/persons?format=html', /^text\/html/);

        const page = await browser.newPage({ viewport: { width: 794, height: 1123 } });        // A4 at 96 dpi
        await page.emulateMedia({ media: 'print' });
        await page.setContent(text);
        // Line boxes of the first record's cells (tsconfig has no DOM types: the script is text).
        const layout = await page.evaluate(`(() => {
            const lines = (cell) => {
                const range = document.createRange();
                range.selectNodeContents(cell);
                return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size;
            };
            const headers = [...document.querySelectorAll('thead th')].map((th) => th.textContent);
            const cells = [...document.querySelector('tbody tr').children];
            return {
                tableWidth: document.querySelector('table').getBoundingClientRect().width,
                pageWidth: document.documentElement.clientWidth,
                idLines: lines(cells[headers.indexOf('id')]),
                notesLines: lines(cells[headers.indexOf('notes')])
            };
        })()`) as { tableWidth: number; pageWidth: number; idLines: number; notesLines: number };

        // Printed on landscape pages, as the PDF prints a table of this many columns.
        const printed = (await page.pdf({ preferCSSPageSize: true })).toString('latin1');
        const [, width, height] = /\/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]/.exec(printed)!.map(Number);
        expect(width).to.be.above(height);

        await page.close();
        expect(layout.tableWidth).to.be.at.most(layout.pageWidth);
        // 24 random characters: 3 to 5 lines in its column, by how wide its letters are (one with many a W or M took 5); squeezed to its header's width, one or two a line
        expect(layout.idLines).to.be.at.most(6);
        expect(layout.notesLines).to.be.below(250);         // 2,000 characters; squeezed, four a line
    });
});
