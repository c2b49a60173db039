import { Readable } from 'stream';

import type { ResourceName } from '../../models/resources';
import { coupleOf, familiesOf, type Family, type PersonLinks } from './gedcom-families';
import { eventOnlyIndividual, familyEventTypes, familyRecord, headerRecord, individualRecord, textOf, trailer, treeRecord } from './gedcom-records';
import type { ExportDocument, ExportRecord, ExportSection, Renderer } from './types';
import { withheldNote } from './withheld';

/** The resources GEDCOM can carry: people, the trees they belong to, and what happened to them. */
const gedcomResources = new Set<ResourceName>(['persons', 'trees', 'events']);

const emptyRows: AsyncIterable<ExportRecord> = { async *[Symbol.asyncIterator]() {} };

function linksOf(person: ExportRecord): PersonLinks {

    return {
        parents: [textOf(person, 'parent_1_id'), textOf(person, 'parent_2_id')].filter((id): id is string => id !== undefined),
        spouse: textOf(person, 'spouse_id'),
        gender: textOf(person, 'gender'),
        birthDate: textOf(person, 'birth_date')
    };
}

/** Cross-reference identifiers: `I1`, `F1`, `T1`… in order of first use (ours are not GEDCOM's `[A-Z0-9_]`). */
function xrefCounter(prefix: string): () => string {

    let next = 0;
    return () => `${prefix}${++next}`;
}

/**
 * GEDCOM 7.0, written as it is read. Events come first into memory (they nest inside the
 * individuals and families they concern), then trees stream out as shared notes, persons are
 * read once for their links (GEDCOM's family pointers go both ways, so every family must be
 * known before the first individual), then again to stream out the individuals, and the
 * families close the file. Only what the file holds is linked: a link to a person outside the
 * export is left out.
 */
async function* gedcomText(document: ExportDocument): AsyncGenerator<string> {

    const section = (name: ResourceName): ExportSection['rows'] => document.sections.find((candidate) => candidate.resource.name === name)?.rows ?? emptyRows;
    const personXref = new Map<string, string>();
    const nextPerson = xrefCounter('I');
    const xrefOfPerson = (id: string) => personXref.get(id) ?? personXref.set(id, nextPerson()).get(id)!;

    const eventsByPerson = new Map<string, ExportRecord[]>();
    let unlinkedEvents = 0;
    for await (const event of section('events')) {
        const personId = textOf(event, 'person_id');
        if (personId === undefined) {
            unlinkedEvents += 1;
            continue;
        }

        eventsByPerson.set(personId, [...(eventsByPerson.get(personId) ?? []), event]);
    }

    const note = [`${document.title} · ${document.familyName}`, ...document.redacted ? [withheldNote] : []];
    if (unlinkedEvents > 0) {
        note.push(`${unlinkedEvents} event(s) linked to no person are not included: GEDCOM records events only within individuals and families.`);
    }

    yield `\ufeff${headerRecord(document.generatedAt, note.join('\n'))}`;

    const treeXref = new Map<string, string>();
    const nextTree = xrefCounter('T');
    for await (const tree of section('trees')) {
        const xref = nextTree();
        treeXref.set(String(tree.id), xref);
        yield treeRecord(xref, tree);
    }

    const links = new Map<string, PersonLinks>();
    for await (const person of section('persons')) {
        links.set(String(person.id), linksOf(person));
    }

    const index = familiesOf(links, xrefCounter('F'));
    const familyEvents = new Map<Family, ExportRecord[]>();
    for (const [personId, events] of eventsByPerson) {
        const couple = coupleOf(index, personId, links);
        const moved = couple ? events.filter((event) => familyEventTypes.has(String(event.type))) : [];
        if (couple && moved.length > 0) {
            familyEvents.set(couple, [...(familyEvents.get(couple) ?? []), ...moved]);
            eventsByPerson.set(personId, events.filter((event) => !moved.includes(event)));
        }
    }

    // A person read the first time but gone the second is in no family; one new the second time has no links.
    const written = new Set<string>();
    for await (const person of section('persons')) {
        const id = String(person.id);
        const known = links.has(id);
        yield individualRecord(person, {
            xref: xrefOfPerson(id),
            events: eventsByPerson.get(id) ?? [],
            childOf: known ? index.asChild.get(id)?.xref : undefined,
            partnerIn: known ? (index.asPartner.get(id) ?? []).map((family) => family.xref) : [],
            treeXref: treeXref.get(textOf(person, 'tree_id') ?? '')
        });
        written.add(id);
    }

    for (const [personId, events] of eventsByPerson) {
        if (!written.has(personId) && events.length > 0) {
            yield eventOnlyIndividual(xrefOfPerson(personId), personId, events);
        }
    }

    for (const family of index.families) {
        const partners = family.partners.filter((id) => written.has(id));
        const children = family.children.filter((id) => written.has(id));
        if (partners.length + children.length > 0) {
            yield familyRecord({
                xref: family.xref,
                partners: partners.map((id) => ({ xref: xrefOfPerson(id), gender: links.get(id)?.gender })),
                children: children.map(xrefOfPerson),
                events: familyEvents.get(family) ?? []
            });
        }
    }

    yield trailer;
}

/** FamilySearch GEDCOM 7.0 (UTF-8, `.ged`), the IANA-registered media type. */
export const gedcomRenderer: Renderer = {
    extension: 'ged',
    contentType: 'text/vnd.familysearch.gedcom; charset=utf-8',
    disposition: 'attachment',
    accepts: (resource) => gedcomResources.has(resource.name),
    render: (document) => Readable.from(gedcomText(document), { objectMode: false })
};
