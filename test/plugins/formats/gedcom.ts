import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { familyWithKey, testServer, type FamilyFixture } from '../../helpers/server';
import { dataOf } from '../records/fixtures';
import { exportText } from './helpers';
import { child, children, parseGedcom, pointerOf, type GedcomNode } from './gedcom-parse';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

const gedcomType = /^text\/vnd\.familysearch\.gedcom; charset=utf-8$/;

/** The individual whose REFN is the record id. */
const individual = (records: GedcomNode[], id: string) => records.find((record) => record.tag === 'INDI' && child(record, 'REFN')?.value === id)!;
const record = (records: GedcomNode[], xref: string | undefined) => records.find((candidate) => candidate.xref === xref)!;
const tags = (records: GedcomNode[], tag: string) => records.filter((candidate) => candidate.tag === tag);

describe('format=gedcom', () => {

    let server: Server;
    let family: FamilyFixture;
    const ids: Record<string, string> = {};

    const create = async (resource: string, body: Record<string, unknown>) => dataOf(await family.inject('POST', `/api/v1/${resource}`, body), 201).id as string;

    before(async () => {

        server = await testServer();
        family = await familyWithKey(server);
        ids.tree = await create('trees', { name: 'Müller line', description: 'From Bern\nand @home' });
        ids.hans = await create('persons', { first_name: 'Hans', last_name: 'Müller', gender: 'male', birth_date: '1950', tree_id: ids.tree });
        ids.zoe = await create('persons', { first_name: 'Zoë', last_name: 'Müller', birth_name: 'Keller', gender: 'female', birth_date: '1952-03-07', birth_place: 'Zürich', death_date: '2020-11', spouse_id: ids.hans, tree_id: ids.tree });
        ids.anna = await create('persons', { first_name: '@lice Anna', last_name: 'Müller', gender: 'other', parent_1_id: ids.zoe, parent_2_id: ids.hans, notes: 'First line\nsecond line' });
        ids.karl = await create('persons', { first_name: 'Karl', last_name: 'Müller', parent_1_id: ids.hans });
        ids.per = await create('persons', { first_name: 'Per', last_name: 'Strand', gender: 'male', spouse_id: ids.anna });
        await create('events', { title: 'Wedding in Bern', type: 'marriage', date: '1975-06', place: 'Bern', person_id: ids.hans });
        await create('events', { title: 'Birth of Anna', type: 'birth', date: '1976-02-29', place: 'Basel', person_id: ids.anna });
        await create('events', { title: 'Emigrated', type: 'migration', date: '1999', person_id: ids.karl, description: 'To Canada' });
        await create('events', { title: 'Engaged', type: 'marriage', date: '2001', person_id: ids.karl });
        await create('events', { title: 'Reunion', type: 'reunion' });
    });

    after(() => server.stop());

    it('is a GEDCOM 7.0 file, named after the family, the resource and the day', async () => {

        const { text, response } = await exportText(family, '/api/v1/persons?format=gedcom', gedcomType);
        expect(response.headers['content-disposition']).to.match(/^attachment; filename="test-family-persons-\d{4}-\d{2}-\d{2}\.ged"$/);
        const [head] = parseGedcom(text);
        expect(child(child(head, 'GEDC')!, 'VERS')!.value).to.equal('7.0');
        expect(child(head, 'SOUR')!.value).to.equal('family-records');
        expect(child(head, 'DATE')!.value).to.match(/^\d{1,2} [A-Z]{3} \d{4}$/);
        expect(child(child(head, 'DATE')!, 'TIME')!.value).to.match(/^\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
        expect(child(head, 'NOTE')!.value).to.equal('Persons · Test family');
    });

    it('writes each person as an individual: names, sex, birth and death, notes, id and last change', async () => {

        const records = parseGedcom((await exportText(family, '/api/v1/persons?format=gedcom', gedcomType)).text);
        expect(tags(records, 'INDI')).to.have.length(5);

        const zoe = individual(records, ids.zoe);
        const [name, birthName] = children(zoe, 'NAME');
        expect(name.value).to.equal('Zoë /Müller/');
        expect(child(name, 'GIVN')!.value).to.equal('Zoë');
        expect(child(name, 'SURN')!.value).to.equal('Müller');
        expect(birthName.value).to.equal('Zoë /Keller/');
        expect(child(birthName, 'TYPE')!.value).to.equal('BIRTH');
        expect(child(zoe, 'SEX')!.value).to.equal('F');
        expect(child(child(zoe, 'BIRT')!, 'DATE')!.value).to.equal('7 MAR 1952');
        expect(child(child(zoe, 'BIRT')!, 'PLAC')!.value).to.equal('Zürich');
        expect(child(child(zoe, 'DEAT')!, 'DATE')!.value).to.equal('NOV 2020');
        expect(child(child(zoe, 'REFN')!, 'TYPE')!.value).to.equal('Family Records API id');
        expect(child(child(zoe, 'CHAN')!, 'DATE')!.value).to.match(/^\d{1,2} [A-Z]{3} \d{4}$/);

        expect(child(child(individual(records, ids.hans), 'BIRT')!, 'DATE')!.value).to.equal('1950');
        expect(child(individual(records, ids.hans), 'SEX')!.value).to.equal('M');
        expect(child(individual(records, ids.karl), 'SEX')!.value).to.equal('U');

        const anna = individual(records, ids.anna);
        expect(child(anna, 'SEX')!.value).to.equal('X');
        expect(child(anna, 'NAME')!.value).to.equal('@lice Anna /Müller/');
        expect(child(anna, 'NOTE')!.value).to.equal('First line\nsecond line');
    });

    it('escapes a leading @ and continues multi-line text on CONT lines', async () => {

        const { text } = await exportText(family, '/api/v1/all?format=gedcom', gedcomType);
        expect(text).to.contain('\r\n1 NAME @@lice Anna /Müller/\r\n2 GIVN @@lice Anna\r\n');
        expect(text).to.contain('\r\n1 NOTE First line\r\n2 CONT second line\r\n');
        expect(text).to.match(/\r\n0 @T1@ SNOTE Müller line\r\n1 CONT From Bern\r\n1 CONT and @home\r\n/);
    });

    it('keeps slashes and line breaks in GIVN and SURN as stored: only the NAME line delimits the surname with slashes', async () => {

        const own = await familyWithKey(server);
        const id = dataOf(await own.inject('POST', '/api/v1/persons', { first_name: 'Jean/Paul\nMarie', last_name: 'Dupont / Durand', birth_name: 'Le/Bris' }), 201).id as string;

        const records = parseGedcom((await exportText(own, '/api/v1/persons?format=gedcom', gedcomType)).text);
        const [name, birthName] = children(individual(records, id), 'NAME');
        expect(name.value).to.equal('Jean Paul Marie /Dupont Durand/');
        expect(child(name, 'GIVN')!.value).to.equal('Jean/Paul\nMarie');
        expect(child(name, 'SURN')!.value).to.equal('Dupont / Durand');
        expect(birthName.value).to.equal('Jean Paul Marie /Le Bris/');
        expect(child(birthName, 'SURN')!.value).to.equal('Le/Bris');
    });

    it('writes no empty structure for a value of nothing but characters GEDCOM bans', async () => {

        const own = await familyWithKey(server);
        const treeId = dataOf(await own.inject('POST', '/api/v1/trees', { name: '\u0001', description: '\u0002' }), 201).id as string;
        const nameless = dataOf(await own.inject('POST', '/api/v1/persons', { first_name: '\u0007', last_name: '\u0001', birth_name: '\u0008', birth_place: '\u0003', notes: '\u0001\u0002', tree_id: treeId }), 201).id as string;
        const tabbed = dataOf(await own.inject('POST', '/api/v1/persons', { first_name: 'Ida\u0001', last_name: '\u001f' }), 201).id as string;
        dataOf(await own.inject('POST', '/api/v1/events', { title: '\u0002', type: 'birth', place: '\u0003', description: '\u0001', person_id: nameless }), 201);
        dataOf(await own.inject('POST', '/api/v1/events', { title: '\u0002', type: 'reunion', person_id: nameless }), 201);

        const records = parseGedcom((await exportText(own, '/api/v1/all?format=gedcom', gedcomType)).text);
        expect(tags(records, 'SNOTE')[0].value).to.equal('Tree');
        const person = individual(records, nameless);
        expect(person.children.map((node) => node.tag)).to.equal(['SEX', 'BIRT', 'EVEN', 'SNOTE', 'REFN', 'CHAN']);
        expect(child(child(person, 'BIRT')!, 'TYPE')!.value).to.equal('birth');
        expect(child(person, 'EVEN')!.value).to.equal('reunion');

        const ida = individual(records, tabbed);
        expect(children(ida, 'NAME').map((name) => [name.value, name.children.map((node) => `${node.tag} ${node.value}`)])).to.equal([['Ida', ['GIVN Ida']]]);
    });

    it('continues text at every kind of line break on a CONT line: a form feed or U+2028 is not dropped', async () => {

        const own = await familyWithKey(server);
        const id = dataOf(await own.inject('POST', '/api/v1/persons', { first_name: 'Ada', last_name: 'Berg', notes: 'Page one\u000cPage two\u2028Three\u000bFour\u0085Five\u2029Six\r\nSeven\rEight' }), 201).id as string;

        const { text } = await exportText(own, '/api/v1/persons?format=gedcom', gedcomType);
        const note = child(individual(parseGedcom(text), id), 'NOTE')!;
        expect(note.value).to.equal('Page one\nPage two\nThree\nFour\nFive\nSix\nSeven\nEight');
    });

    it('writes the year 0 of a date as 1 BCE: GEDCOM\'s calendar has no year 0', async () => {

        const own = await familyWithKey(server);
        const id = dataOf(await own.inject('POST', '/api/v1/persons', { first_name: 'Early', last_name: 'Bird', birth_date: '0000', death_date: '0000-02-29' }), 201).id as string;
        dataOf(await own.inject('POST', '/api/v1/events', { title: 'Moved', type: 'migration', date: '0000-06', person_id: id }), 201);
        dataOf(await own.inject('POST', '/api/v1/events', { title: 'Baptised', type: 'baptism', date: '0099-03-04', person_id: id }), 201);

        const person = individual(parseGedcom((await exportText(own, '/api/v1/all?format=gedcom', gedcomType)).text), id);
        expect(child(child(person, 'BIRT')!, 'DATE')!.value).to.equal('1 BCE');
        expect(child(child(person, 'DEAT')!, 'DATE')!.value).to.equal('29 FEB 1 BCE');
        expect(child(child(person, 'EVEN')!, 'DATE')!.value).to.equal('JUN 1 BCE');
        expect(child(child(person, 'BAPM')!, 'DATE')!.value).to.equal('4 MAR 99');
    });

    it('derives families from parent and spouse links, each once, linked both ways', async () => {

        const records = parseGedcom((await exportText(family, '/api/v1/persons?format=gedcom', gedcomType)).text);
        const xref = (id: string) => individual(records, id).xref;
        const families = tags(records, 'FAM').map((fam) => ({
            husb: pointerOf(child(fam, 'HUSB')),
            wife: pointerOf(child(fam, 'WIFE')),
            chil: children(fam, 'CHIL').map(pointerOf)
        }));

        expect(families).to.have.length(3);
        expect(families).to.include({ husb: xref(ids.hans), wife: xref(ids.zoe), chil: [xref(ids.anna)] });    // spouses and parents: one family
        expect(families).to.include({ husb: xref(ids.hans), wife: undefined, chil: [xref(ids.karl)] });         // one parent known
        expect(families).to.include({ husb: xref(ids.per), wife: xref(ids.anna), chil: [] });                   // spouses, no children
    });

    it('puts a lone female parent in WIFE, and a lone male or unknown one in HUSB', async () => {

        const own = await familyWithKey(server);
        const person = async (body: Record<string, unknown>) => dataOf(await own.inject('POST', '/api/v1/persons', { last_name: 'Lind', ...body }), 201).id as string;
        const mother = await person({ first_name: 'Maja', gender: 'female' });
        const father = await person({ first_name: 'Olof', gender: 'male' });
        const unknown = await person({ first_name: 'Kim', gender: 'unknown' });
        const offspring = [await person({ first_name: 'Ida', parent_1_id: mother }), await person({ first_name: 'Ola', parent_2_id: father }), await person({ first_name: 'Eva', parent_1_id: unknown })];

        const records = parseGedcom((await exportText(own, '/api/v1/persons?format=gedcom', gedcomType)).text);
        const familyOf = (childId: string) => record(records, pointerOf(child(individual(records, childId), 'FAMC')));
        const slots = (fam: GedcomNode) => fam.children.filter((node) => node.tag === 'HUSB' || node.tag === 'WIFE').map((node) => `${node.tag} ${pointerOf(node)}`);

        expect(offspring.map((id) => slots(familyOf(id)))).to.equal([
            [`WIFE ${individual(records, mother).xref}`],
            [`HUSB ${individual(records, father).xref}`],
            [`HUSB ${individual(records, unknown).xref}`]
        ]);
    });

    it('puts events inside the individual or family they concern, and notes those it cannot place', async () => {

        const records = parseGedcom((await exportText(family, '/api/v1/all?format=gedcom', gedcomType)).text);
        const couple = record(records, pointerOf(children(individual(records, ids.zoe), 'FAMS')[0]));
        const marriage = child(couple, 'MARR')!;
        expect(child(marriage, 'TYPE')!.value).to.equal('Wedding in Bern');
        expect(child(marriage, 'DATE')!.value).to.equal('JUN 1975');
        expect(child(marriage, 'PLAC')!.value).to.equal('Bern');

        const anna = individual(records, ids.anna);
        expect(children(anna, 'BIRT').map((birth) => child(birth, 'DATE')!.value)).to.equal(['29 FEB 1976']);

        const karl = individual(records, ids.karl);
        const [emigrated, engaged] = children(karl, 'EVEN');
        expect(emigrated.value).to.equal('Emigrated');
        expect(child(emigrated, 'TYPE')!.value).to.equal('migration');
        expect(child(emigrated, 'NOTE')!.value).to.equal('To Canada');
        expect(engaged.value).to.equal('Engaged');                  // a marriage without a spouse in the file has no family to go to
        expect(child(engaged, 'TYPE')!.value).to.equal('marriage');
        expect(child(karl, 'MARR')).to.not.exist();

        expect(child(records[0], 'NOTE')!.value).to.equal('All records · Test family\n1 event(s) linked to no person are not included: GEDCOM records events only within individuals and families.');
        expect(JSON.stringify(records)).to.not.contain('Reunion');
    });

    it('puts a marriage or divorce in the family of the spouse the person names, whatever the export\'s order', async () => {

        const own = await familyWithKey(server);
        const person = async (body: Record<string, unknown>) => dataOf(await own.inject('POST', '/api/v1/persons', { last_name: 'Wed', ...body }), 201).id as string;
        const event = async (title: string, type: string, personId: string) => dataOf(await own.inject('POST', '/api/v1/events', { title, type, person_id: personId }), 201);
        const adam = await person({ first_name: 'Adam', gender: 'male' });
        const bea = await person({ first_name: 'Bea', gender: 'female', spouse_id: adam });
        const gus = await person({ first_name: 'Gus', gender: 'male', spouse_id: bea });
        const lea = await person({ first_name: 'Lea', gender: 'female' });
        const max = await person({ first_name: 'Max', gender: 'male', spouse_id: lea });
        const ned = await person({ first_name: 'Ned', gender: 'male', spouse_id: lea });
        const ola = await person({ first_name: 'Ola', gender: 'female' });
        const pal = await person({ first_name: 'Pal', gender: 'male', spouse_id: ola });
        await event('Bea and Adam divorced', 'divorce', bea);
        await event('Gus married Bea', 'marriage', gus);
        await event('Lea married', 'marriage', lea);
        await event('Ola married Pal', 'marriage', ola);

        for (const direction of ['asc', 'desc']) {
            const records = parseGedcom((await exportText(own, `/api/v1/all?format=gedcom&direction=${direction}`, gedcomType)).text);
            const xref = (id: string) => individual(records, id).xref;
            const coupleEvents = tags(records, 'FAM').map((fam) => ({
                partners: [pointerOf(child(fam, 'HUSB')), pointerOf(child(fam, 'WIFE'))],
                events: fam.children.filter((node) => node.tag === 'MARR' || node.tag === 'DIV').map((node) => child(node, 'TYPE')!.value)
            }));

            expect(coupleEvents, direction).to.include([
                { partners: [xref(adam), xref(bea)], events: ['Bea and Adam divorced'] },
                { partners: [xref(gus), xref(bea)], events: ['Gus married Bea'] },
                { partners: [xref(max), xref(lea)], events: [] },
                { partners: [xref(ned), xref(lea)], events: [] },
                { partners: [xref(pal), xref(ola)], events: ['Ola married Pal'] }      // named by their one spouse
            ]);
            expect(child(individual(records, lea), 'EVEN')!.value, 'named by two: no one couple').to.equal('Lea married');
        }
    });

    it('writes trees as shared notes their persons point to', async () => {

        const records = parseGedcom((await exportText(family, '/api/v1/all?format=gedcom', gedcomType)).text);
        const [tree] = tags(records, 'SNOTE');
        expect(tree.value).to.equal('Müller line\nFrom Bern\nand @home');
        expect(child(tree, 'REFN')!.value).to.equal(ids.tree);
        expect(pointerOf(child(individual(records, ids.zoe), 'SNOTE'))).to.equal(tree.xref);
        expect(child(individual(records, ids.per), 'SNOTE')).to.not.exist();

        const trees = parseGedcom((await exportText(family, '/api/v1/trees?format=gedcom', gedcomType)).text);
        expect(trees.map((node) => node.tag)).to.equal(['HEAD', 'SNOTE', 'TRLR']);
    });

    it('links only persons in the file: a filtered export leaves out links to the others', async () => {

        const records = parseGedcom((await exportText(family, '/api/v1/persons?format=gedcom&filter[last_name]=Strand', gedcomType)).text);
        expect(tags(records, 'INDI')).to.have.length(1);
        expect(tags(records, 'FAM')).to.have.length(0);
        expect(children(individual(records, ids.per), 'FAMS')).to.have.length(0);

        const searched = parseGedcom((await exportText(family, '/api/v1/persons?format=gedcom&search=karl hans', gedcomType)).text);
        expect(tags(searched, 'INDI')).to.have.length(0);
        const hansAndKarl = parseGedcom((await exportText(family, '/api/v1/persons?format=gedcom&filter[gender]=male', gedcomType)).text);
        expect(tags(hansAndKarl, 'INDI').map((node) => child(node, 'REFN')!.value)).to.equal([ids.hans, ids.per]);
    });

    it('gives events of persons outside the file an individual holding only the person id and the events', async () => {

        const records = parseGedcom((await exportText(family, '/api/v1/events?format=gedcom', gedcomType)).text);
        expect(tags(records, 'FAM')).to.have.length(0);
        const hans = individual(records, ids.hans);
        expect(child(hans, 'NAME')).to.not.exist();
        expect(child(hans, 'EVEN')!.value).to.equal('Wedding in Bern');
        expect(tags(records, 'INDI')).to.have.length(3);
    });

    it('exports only the GEDCOM resources in the key\'s scope from /api/v1/all', async () => {

        const own = await familyWithKey(server, { keyResources: ['persons', 'gallery', 'finances'] });
        dataOf(await own.inject('POST', '/api/v1/persons', { first_name: 'Ada', last_name: 'Berg' }), 201);
        dataOf(await own.inject('POST', '/api/v1/finances', { description: 'Rent', kind: 'expense', amount_minor: 100, currency: 'EUR' }), 201);

        const { text, response } = await exportText(own, '/api/v1/all?format=gedcom', gedcomType);
        expect(response.headers['content-disposition']).to.match(/filename="test-family-all-\d{4}-\d{2}-\d{2}\.ged"/);
        expect(parseGedcom(text).map((node) => node.tag)).to.equal(['HEAD', 'INDI', 'TRLR']);
        expect(text).to.not.contain('Rent');
    });

    it('refuses /api/v1/all?format=gedcom with 400 when the key reaches none of the resources GEDCOM exports', async () => {

        const own = await familyWithKey(server, { keyResources: ['gallery', 'finances'] });
        const response = await own.inject('GET', '/api/v1/all?format=gedcom');
        expect(response.statusCode).to.equal(400);
        expect(response.result).to.include({ code: 'invalid_request', message: 'format=gedcom exports trees, persons, events: this API key reaches none of them' });
        expect((await own.inject('GET', '/api/v1/all?format=csv')).statusCode).to.equal(200);
    });
});
