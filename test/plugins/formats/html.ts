import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { familyWithKey, testServer, type FamilyFixture } from '../../helpers/server';
import { dataOf } from '../records/fixtures';
import { exportText } from './helpers';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

const htmlType = /^text\/html; charset=utf-8$/;

const hostile = {
    first_name: '<script>alert(1)</script>',
    last_name: '" onmouseover="alert(2)',
    birth_place: '\'><img src=x onerror=alert(3)>',
    notes: 'Tom & Jerry </td></tr></table><iframe src="javascript:alert(4)"></iframe>'
};

describe('format=html', () => {

    let server: Server;
    let family: FamilyFixture;

    before(async () => {

        server = await testServer();
        family = await familyWithKey(server);
        dataOf(await family.inject('POST', '/api/v1/persons', hostile), 201);
        dataOf(await family.inject('POST', '/api/v1/persons', { first_name: 'Zoë', last_name: 'Müller' }), 201);
    });

    after(() => server.stop());

    it('escapes every record value, so hostile names stay text', async () => {

        const { text } = await exportText(family, '/api/v1/persons?format=html', htmlType);
        expect(text).to.not.contain('<script');
        expect(text).to.not.contain('<img');
        expect(text).to.not.contain('<iframe');
        expect(text).to.not.contain('" onmouseover');
        expect(text).to.contain('<td dir="auto">&lt;script&gt;alert(1)&lt;/script&gt;</td>');
        expect(text).to.contain('<td dir="auto">&quot; onmouseover=&quot;alert(2)</td>');
        expect(text).to.contain('<td dir="auto">&#39;&gt;&lt;img src=x onerror=alert(3)&gt;</td>');
        expect(text).to.contain('Tom &amp; Jerry &lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;&lt;iframe');
        expect(text).to.contain('<td dir="auto">Zoë</td><td dir="auto">Müller</td>');
        expect(text.match(/<tr>/g)).to.have.length(3);         // the header row and two records: nothing broke out of its cell
    });

    it('escapes the family name too', async () => {

        const own = await familyWithKey(server);
        await server.app.services.models.Family.update({ name: '<b>Bold</b> & Co' }, { where: { family_long_id: own.familyLongId } });
        const { text } = await exportText(own, '/api/v1/persons?format=html', htmlType);
        expect(text).to.not.contain('<b>');
        expect(text).to.contain('&lt;b&gt;Bold&lt;/b&gt; &amp; Co');
    });

    it('is a self-contained printable page: title, family, generated time, inline styles with print rules', async () => {

        const own = await familyWithKey(server);
        dataOf(await own.inject('POST', '/api/v1/persons', { first_name: 'Zoë', last_name: 'Müller' }), 201);
        const { text } = await exportText(own, '/api/v1/persons?format=html', htmlType);
        expect(text).to.match(/^<!DOCTYPE html>/);
        expect(text).to.contain('<title>Persons · Test family</title>');
        expect(text).to.contain('<h1>Persons</h1>');
        expect(text).to.match(/<bdi>Test family<\/bdi> · generated <time datetime="\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z">\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC<\/time>/);
        expect(text).to.contain('@media print');
        expect(text).to.not.match(/<link|<script|src=|href=|url\(|@import/);
        expect(text).to.contain('<th scope="col">first_name</th>');
    });

    it('is shown inline, behind a Content-Security-Policy that allows nothing but its own styles', async () => {

        const { response } = await exportText(family, '/api/v1/persons?format=html', htmlType);
        expect(response.headers['content-disposition']).to.match(/^inline; filename="test-family-persons-\d{4}-\d{2}-\d{2}\.html"$/);
        expect(String(response.headers['content-security-policy'])).to.startWith('default-src \'none\'; style-src \'unsafe-inline\'');
        expect(response.headers['x-content-type-options']).to.equal('nosniff');
    });

    it('gives each value and the family name the direction of their own text, so Hebrew and Arabic names keep their neighbours in order', async () => {

        const own = await familyWithKey(server);
        await server.app.services.models.Family.update({ name: 'משפחת כהן' }, { where: { family_long_id: own.familyLongId } });
        dataOf(await own.inject('POST', '/api/v1/persons', { first_name: 'יעקב', last_name: 'الحسن', birth_place: 'Haifa' }), 201);
        const { text } = await exportText(own, '/api/v1/persons?format=html', htmlType);
        expect(text).to.contain('<td dir="auto">יעקב</td><td dir="auto">الحسن</td>');
        expect(text).to.contain('<td dir="auto">Haifa</td>');
        expect(text).to.contain('<p class="meta"><bdi>משפחת כהן</bdi> · generated');
        expect(text).to.not.match(/<td>/);
        // Aligned to the start of their own direction: right for a right-to-left value.
        expect(text).to.contain('text-align: start');
    });

    it('draws one table per resource in scope for /api/v1/all', async () => {

        const own = await familyWithKey(server, { keyResources: ['persons', 'trees', 'events'] });
        dataOf(await own.inject('POST', '/api/v1/trees', { name: 'The <Berg> tree' }), 201);
        const { text } = await exportText(own, '/api/v1/all?format=html', htmlType);
        expect(text.match(/<table>/g)).to.have.length(3);
        expect(text.match(/<h2>[^<]+<\/h2>/g)).to.equal(['<h2>Trees</h2>', '<h2>Persons</h2>', '<h2>Events</h2>']);
        expect(text).to.contain('The &lt;Berg&gt; tree');
        expect(text.match(/No records\./g)).to.have.length(2);
    });
});
