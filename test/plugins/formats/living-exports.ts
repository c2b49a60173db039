import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { gedcomDate } from '../../../plugins/formats/gedcom-lines';
import { withheldNote } from '../../../plugins/formats/withheld';
import { hiddenFields } from '../../../lib/privacy/redaction';
import { resources, type ResourceName } from '../../../models/resources';
import { livingFamily, livingMarker, type LivingFamily } from '../../helpers/living-family';
import { testServer, type FamilyFixture } from '../../helpers/server';
import { child, children, parseGedcom, pointerOf, type GedcomNode } from './gedcom-parse';
import { csvHeader, exportText, parseCsv } from './helpers';
import { pdfOf } from './pdf-text';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

/** The resources whose records may concern a person, so may come redacted. */
const concerning: ResourceName[] = ['persons', 'events', 'gallery', 'documents', 'history'];
/** The first names of the persons presumed living (helpers/living-family.ts): no export of a redacted key may hold them. */
const livingFirstNames = ['Livia', 'Nell', 'Tamsin', 'Ida', 'Pip', 'Edda', 'Emmet', 'Ewan'];

const gedcomType = /^text\/vnd\.familysearch\.gedcom; charset=utf-8$/;

describe('exports of a key with living_persons: redacted', () => {

    let server: Server;
    let family: LivingFamily;

    /** What no export of a redacted key may show: the marker, the living persons' first names, their dates as stored and as GEDCOM writes them. */
    const hiddenValues = () => [livingMarker, ...livingFirstNames, '1990-07-14', gedcomDate('1990-07-14'), '2019-03', gedcomDate('2019-03'), '2012-06', gedcomDate('2012-06'), family.cutoff, gedcomDate(family.cutoff)];

    /** Each value as a whole word: a random record id may hold `Ida` or `Pip`. */
    const expectNoHiddenValue = (text: string) => {

        for (const value of hiddenValues()) {
            expect(new RegExp(`(?<![A-Za-z0-9])${value}(?![A-Za-z0-9])`).test(text), `the export holds ${value}`).to.be.false();
        }
    };

    const idsOf = (resource: ResourceName) => (resource === 'persons' ? family.persons : family[resource as 'events']) as Record<string, string>;
    /** Whether a record concerns a living person: is one, or names one as its person. */
    const ofLiving = (resource: ResourceName, row: Record<string, string>) => family.living.has(resource === 'persons' ? row.id : row.person_id);

    before(async () => {

        server = await testServer();
        family = await livingFamily(server);
    });

    after(() => server.stop());

    describe('CSV', () => {

        for (const resource of concerning) {
            it(`shows the ${resource} of living persons redacted, with a redacted column, the others as they are`, async () => {

                const { text } = await exportText(family.redacted, `/api/v1/${resource}?format=csv`, /^text\/csv/);
                expectNoHiddenValue(text);
                expect(csvHeader(text).at(-1)).to.equal('redacted');
                const rows = parseCsv(text);
                expect(rows.map((row) => row.id)).to.include(Object.values(idsOf(resource)));
                for (const row of rows) {
                    const redacted = ofLiving(resource, row);
                    expect(row.redacted, row.id).to.equal(String(redacted));
                    if (redacted) {
                        expect(hiddenFields(resources[resource]).map((field) => row[field]).filter(Boolean), row.id).to.equal([]);
                    }
                }

                if (resource === 'persons') {
                    const livia = rows.find((row) => row.id === family.persons.livingRecent)!;
                    expect(livia).to.include({ first_name: 'Living', last_name: '', gender: 'female', parent_1_id: family.persons.deadByDeathDate, parent_2_id: family.persons.deadByDeathEvent, spouse_id: family.persons.unknownBirth });
                    expect(rows.find((row) => row.id === family.persons.deadByDeathDate)).to.include({ first_name: 'Hugo', birth_date: '1931-04-02', redacted: 'false' });
                }
                else {
                    expect(rows.find((row) => row.id === idsOf(resource).ofLiving)).to.include({ person_id: family.persons.livingRecent, title: '', redacted: 'true' });
                    expect(rows.find((row) => row.id === idsOf(resource).ofDead)!.title).to.endWith('of Hugo Marshwood');
                    expect(rows.find((row) => row.id === idsOf(resource).ofNobody)!.title).to.endWith('of the family');
                }
            });
        }

        it('shows /all redacted, each row with the redacted column', async () => {

            const { text } = await exportText(family.redacted, '/api/v1/all?format=csv', /^text\/csv/);
            expectNoHiddenValue(text);
            const rows = parseCsv(text);
            expect(csvHeader(text).at(-1)).to.equal('redacted');
            for (const row of rows) {
                const resource = row.resource as ResourceName;
                expect(row.redacted, `${resource} ${row.id}`).to.equal(String(concerning.includes(resource) && ofLiving(resource, row)));
            }

            expect(rows.filter((row) => row.redacted === 'true').map((row) => row.resource)).to.include(concerning);
        });

        it('is unchanged for a full key: no redacted column, every value', async () => {

            const { text } = await exportText(family.full, '/api/v1/all?format=csv', /^text\/csv/);
            expect(csvHeader(text)).to.not.include('redacted');
            expect(text).to.include(livingMarker);
            expect(parseCsv(text).find((row) => row.id === family.persons.livingRecent)).to.include({ first_name: 'Livia', birth_date: '1990-07-14' });
        });
    });

    describe('HTML', () => {

        const cells = (html: string) => [...html.matchAll(/<td dir="auto">([^<]*)<\/td>/g)].map((match) => match[1]);

        for (const path of [...concerning, 'all']) {
            it(`shows ${path} without a living person's details, and says they are withheld`, async () => {

                const { text } = await exportText(family.redacted, `/api/v1/${path}?format=html`, /^text\/html/);
                expectNoHiddenValue(text);
                expect(text).to.include(`· ${withheldNote}</p>`);
                if (path === 'persons' || path === 'all') {
                    expect(cells(text).filter((cell) => cell === 'Living')).to.have.length(family.living.size);
                    expect(cells(text)).to.include(['Hugo', '1931-04-02']);
                }
            });
        }

        it('is unchanged for a full key', async () => {

            const { text } = await exportText(family.full, '/api/v1/all?format=html', /^text\/html/);
            expect(text).to.not.include(withheldNote);
            expect(text).to.include(livingMarker);
        });
    });

    describe('PDF', () => {

        /** The text of a PDF as one string, its runs joined without spaces: a value wrapped in its column still reads whole. */
        const pdfText = async (key: FamilyFixture, path: string) => (await pdfOf(key, `/api/v1/${path}?format=pdf`)).pages.flat().join('').replace(/\s+/g, '');
        const squeezed = (text: string) => text.replace(/\s+/g, '');

        for (const path of ['persons', 'events', 'all']) {
            it(`shows ${path} without a living person's details, and says they are withheld`, async () => {

                const text = await pdfText(family.redacted, path);
                // Runs joined without spaces have no word bounds: the names of three letters could be part of an id.
                for (const value of hiddenValues().filter((hidden) => hidden.length > 3)) {
                    expect(text.includes(squeezed(value)), `the PDF holds ${value}`).to.be.false();
                }

                expect(text).to.include(squeezed(withheldNote));
                if (path !== 'events') {
                    expect(text.split('Living').length - 1).to.equal(family.living.size);
                    expect(text).to.include('Hugo');
                }
            });
        }

        it('is unchanged for a full key', async () => {

            const text = await pdfText(family.full, 'persons');
            expect(text).to.not.include(squeezed(withheldNote));
            expect(text).to.include('Livia');
        });
    });

    describe('GEDCOM', () => {

        const individual = (records: GedcomNode[], id: string) => records.find((record) => record.tag === 'INDI' && child(record, 'REFN')?.value === id)!;
        /** Each family as the ids of its partners and children: what must be the same whatever the key. */
        const families = (records: GedcomNode[]) => {

            const idOf = (xref: string | undefined) => child(records.find((record) => record.xref === xref)!, 'REFN')!.value;
            return records.filter((record) => record.tag === 'FAM')
                .map((record) => ({
                    partners: [...children(record, 'HUSB'), ...children(record, 'WIFE')].map((node) => idOf(pointerOf(node))).sort(),
                    children: children(record, 'CHIL').map((node) => idOf(pointerOf(node))).sort()
                }))
                .sort((a, b) => a.partners.join().localeCompare(b.partners.join()));
        };

        for (const path of ['persons', 'all']) {
            it(`writes ${path} with "Living" individuals and the families intact`, async () => {

                const { text } = await exportText(family.redacted, `/api/v1/${path}?format=gedcom`, gedcomType);
                expectNoHiddenValue(text);
                const records = parseGedcom(text);
                expect(child(records[0], 'NOTE')!.value!.split('\n')[1]).to.equal(withheldNote);

                for (const id of family.living) {
                    const person = individual(records, id);
                    expect(children(person, 'NAME').map((name) => name.value)).to.equal(['Living']);
                    expect(child(child(person, 'NAME')!, 'SURN')).to.not.exist();
                    for (const tag of ['BIRT', 'DEAT', 'NOTE']) {
                        expect(child(person, tag), `${tag} of ${id}`).to.not.exist();
                    }

                    for (const event of person.children) {
                        expect(event.children.map((detail) => detail.tag), `${event.tag} of ${id}`).to.not.include(['DATE', 'PLAC', 'NOTE']);
                    }
                }

                expect(children(individual(records, family.persons.deadByDeathDate), 'NAME')[0].value).to.equal('Hugo /Marshwood/');
                const livia = individual(records, family.persons.livingRecent);
                expect(child(livia, 'FAMC')).to.exist();
                expect(children(livia, 'FAMS')).to.have.length(1);

                const { text: fullText } = await exportText(family.full, `/api/v1/${path}?format=gedcom`, gedcomType);
                expect(families(records)).to.equal(families(parseGedcom(fullText)));
                expect(families(records)).to.include([
                    { partners: [family.persons.deadByDeathDate, family.persons.deadByDeathEvent].sort(), children: [family.persons.livingRecent] },
                    { partners: [family.persons.livingRecent, family.persons.unknownBirth].sort(), children: [family.persons.livingChild] }
                ]);
            });
        }

        it('is unchanged for a full key', async () => {

            const { text } = await exportText(family.full, '/api/v1/persons?format=gedcom', gedcomType);
            const records = parseGedcom(text);
            expect(child(records[0], 'NOTE')!.value).to.not.include(withheldNote);
            expect(child(individual(records, family.persons.livingRecent), 'NAME')!.value).to.equal(`Livia /${livingMarker}/`);
        });
    });
});
