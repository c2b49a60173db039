import { monitorEventLoopDelay, performance } from 'perf_hooks';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { familyWithKey, testServer } from '../../helpers/server';
import { dataOf } from '../records/fixtures';
import { insertPersons } from './helpers';
import { pdfOf } from './pdf-text';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

/** The index of the page showing `text` as a run of its own. */
const pageOf = (pages: string[][], text: string): number => pages.findIndex((page) => page.includes(text));

describe('format=pdf', () => {

    let server: Server;

    before(async () => {

        server = await testServer();
    });

    after(() => server.stop());

    it('is a file named after the family, the resource and the day, with title, family and generated time', async () => {

        const family = await familyWithKey(server);
        dataOf(await family.inject('POST', '/api/v1/persons', { first_name: 'Ada', last_name: 'Berg' }), 201);
        const { pages, response } = await pdfOf(family, '/api/v1/persons?format=pdf');
        expect(response.headers['content-disposition']).to.match(/^attachment; filename="test-family-persons-\d{4}-\d{2}-\d{2}\.pdf"$/);
        expect(pages).to.have.length(1);
        expect(pages[0]).to.include(['Persons', 'Page 1']);
        expect(pages[0].join(' ')).to.match(/Test family · generated \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
    });

    it('renders accented names with its embedded font', async () => {

        const family = await familyWithKey(server);
        dataOf(await family.inject('POST', '/api/v1/persons', { first_name: 'Zoë', last_name: 'Müller', birth_place: 'Łódź', death_place: 'Ørsted' }), 201);
        const [page] = (await pdfOf(family, '/api/v1/persons?format=pdf')).pages;
        expect(page).to.include(['Zoë', 'Müller', 'Łódź', 'Ørsted']);
    });

    it('breaks lines at Windows and old Mac line ends and shows a tab as a space, never as the font\'s missing-glyph box', async () => {

        const family = await familyWithKey(server);
        dataOf(await family.inject('POST', '/api/v1/persons', { first_name: 'Ada', last_name: 'Berg', notes: 'One\r\nTwo\rThree\tand\u000bFour\u2028Five\u0007' }), 201);
        const [page] = (await pdfOf(family, '/api/v1/persons?format=pdf')).pages;
        expect(page).to.include(['One', 'Two', 'Three and', 'Four', 'Five']);
        expect(page.join('')).to.not.contain('\u0000');
    });

    it('keeps the foot on one line beside the page number, cutting a long family name with …', async () => {

        const family = await familyWithKey(server);
        const longName = 'Wolfeschlegelsteinhausenbergerdorff '.repeat(6).slice(0, 200);
        await server.app.services.models.Family.update({ name: longName }, { where: { family_long_id: family.familyLongId } });
        dataOf(await family.inject('POST', '/api/v1/persons', { first_name: 'Ada', last_name: 'Berg' }), 201);

        const [page] = (await pdfOf(family, '/api/v1/persons?format=pdf')).pages;
        expect(page[0]).to.startWith('Persons · Wolfeschlegelsteinhausenbergerdorff');
        expect(page[0]).to.endWith('…');
        expect(page.indexOf('Page 1')).to.be.within(1, 2);          // pdf.js may put a space run between the two
    });

    it('hands the event loop back while it draws a long export, so other requests are answered meanwhile', { timeout: 60_000 }, async () => {

        const family = await familyWithKey(server);
        await insertPersons(server, family.familyLongId, 1000, (index) => ({ first_name: `Person ${index}`, last_name: 'Lindqvist', notes: 'A line of notes. '.repeat(20) }));

        // Drawn in one go, these thousand rows held the loop for most of the export's time, about a second. Compared
        // with the export's own time, not with a number of milliseconds: a busy machine stretches both.
        const delays = monitorEventLoopDelay({ resolution: 5 });
        delays.enable();
        const started = performance.now();
        await pdfOf(family, '/api/v1/persons?format=pdf');
        const exportMs = performance.now() - started;
        delays.disable();

        expect(delays.max / 1e6).to.be.below(exportMs / 5);
    });

    it('breaks a long table across pages, numbering them and repeating the header row on each', { timeout: 60_000 }, async () => {

        const family = await familyWithKey(server);
        const name = (index: number) => `Nr${String(index).padStart(3, '0')}`;
        await insertPersons(server, family.familyLongId, 200, (index) => ({ first_name: name(index), last_name: 'Lindqvist', gender: 'unknown' }));

        const { pages } = await pdfOf(family, '/api/v1/persons?format=pdf');
        expect(pages.length).to.be.above(2);
        pages.forEach((page, index) => {

            expect(page).to.include(`Page ${index + 1}`);
            expect(page).to.include(['id', 'tree id', 'created at', 'updated at']);
        });

        const shown = pages.flat().filter((text) => /^Nr\d{3}$/.test(text));
        expect(shown).to.equal(Array.from({ length: 200 }, (_, index) => name(index)));
    });

    it('wraps long text and cuts a very long cell short instead of overflowing the page', async () => {

        const family = await familyWithKey(server);
        const notes = Array.from({ length: 2000 }, (_, index) => `word${index}`).join(' ');
        dataOf(await family.inject('POST', '/api/v1/persons', { first_name: 'Long', last_name: 'Notes', notes }), 201);
        dataOf(await family.inject('POST', '/api/v1/persons', { first_name: 'After', last_name: 'Notes' }), 201);

        const { pages } = await pdfOf(family, '/api/v1/persons?format=pdf');
        expect(pages).to.have.length(1);
        const text = pages[0];
        expect(text).to.include(['Long', 'After']);
        expect(text.filter((run) => run.startsWith('word0 word1'))).to.have.length(1);     // the first line of the wrapped cell
        expect(text.some((run) => run.endsWith('…'))).to.be.true();
        expect(text.join(' ')).to.not.contain('word1999');
    });

    it('cuts an unbroken value far wider than its column short in a moment (it had taken 40 s and 1 GB)', { timeout: 10_000 }, async () => {

        const family = await familyWithKey(server);
        // Not a letter: a record id (random base62) broken across lines may hold a line of only x.
        dataOf(await family.inject('POST', '/api/v1/persons', { first_name: 'Ada', last_name: 'Notes', notes: '~'.repeat(16_000) }), 201);
        dataOf(await family.inject('POST', '/api/v1/persons', { first_name: 'After', last_name: 'Notes' }), 201);

        const { pages } = await pdfOf(family, '/api/v1/persons?format=pdf');
        expect(pages).to.have.length(1);
        expect(pages[0]).to.include(['Ada', 'After']);
        const cell = pages[0].filter((run) => /^~+…?$/.test(run));
        expect(cell.length).to.be.within(2, 12);
        expect(cell[cell.length - 1]).to.endWith('…');
    });

    it('draws one table per resource in scope for /api/v1/all', async () => {

        const family = await familyWithKey(server, { keyResources: ['trees', 'persons', 'finances'] });
        dataOf(await family.inject('POST', '/api/v1/trees', { name: 'Berg tree' }), 201);
        dataOf(await family.inject('POST', '/api/v1/persons', { first_name: 'Ada', last_name: 'Berg' }), 201);

        const { pages, response } = await pdfOf(family, '/api/v1/all?format=pdf');
        expect(response.headers['content-disposition']).to.match(/filename="test-family-all-\d{4}-\d{2}-\d{2}\.pdf"/);
        const text = pages.flat();
        expect(text).to.include(['All records', 'Trees', 'Berg tree', 'Persons', 'Ada', 'Finances', 'No records.']);
        expect(text).to.not.include('Gallery');
    });

    it('starts a section on a new page unless its title, header row and first row (or "No records.") fit below the table before', { timeout: 60_000 }, async () => {

        const family = await familyWithKey(server, { keyResources: ['persons', 'events', 'finances'] });
        await insertPersons(server, family.familyLongId, 60, (index) => ({ first_name: `Nr${String(index).padStart(3, '0')}`, last_name: 'Lindqvist', gender: 'unknown' }));
        dataOf(await family.inject('POST', '/api/v1/events', { title: 'Wedding', description: 'A long account of the day. '.repeat(100) }), 201);      // a first row of 12 lines

        // `limit` caps each section: the persons' table ends lower or higher on page 1, from full to 14 rows short,
        // more room than the events' start takes (title, header row, a row of 12 lines).
        const personsOnPage1 = (await pdfOf(family, '/api/v1/all?format=pdf')).pages[0].filter((text) => /^Nr\d{3}$/.test(text)).length;
        let sharedPage1 = false;
        for (let limit = personsOnPage1 - 14; limit <= personsOnPage1; limit++) {
            const { pages } = await pdfOf(family, `/api/v1/all?format=pdf&limit=${limit}`);
            expect(pageOf(pages, 'Events'), `limit=${limit}`).to.equal(pageOf(pages, 'Wedding'));
            expect(pageOf(pages, 'Finances'), `limit=${limit}`).to.equal(pageOf(pages, 'No records.'));
            sharedPage1 ||= pageOf(pages, 'Events') === 0;
        }

        expect(sharedPage1).to.be.true();          // and so the persons' page was shared when the start fitted
    });
});
