/*
 * The GEDCOM 7.0 structures of an export: individuals (INDI), families (FAM), trees as shared
 * notes (SNOTE) and events inside the individual or family they concern.
 */
import { gedcomDate, gedcomLine, gedcomText, gedcomTimestamp, personalName, pointerLine } from './gedcom-lines';
import type { ExportRecord } from './types';

const sexes: Record<string, string> = { female: 'F', male: 'M', other: 'X', unknown: 'U' };

/** Our event types with a GEDCOM tag of their own; the others are `EVEN` with a `TYPE`. */
const eventTags: Record<string, string> = {
    birth: 'BIRT', baptism: 'BAPM', death: 'DEAT', burial: 'BURI', graduation: 'GRAD', marriage: 'MARR', divorce: 'DIV'
};

/** Event types GEDCOM records in the family (FAM) rather than the individual. */
export const familyEventTypes = new Set(['marriage', 'divorce']);

const idType = 'Family Records API id';

/**
 * A field's value as text without the characters GEDCOM bans, or undefined when nothing is
 * left: a structure with neither a payload nor substructures is invalid, so an empty value
 * writes no structure at all.
 */
export function textOf(record: ExportRecord, field: string): string | undefined {

    const value = record[field];
    const text = value === null || value === undefined ? '' : gedcomText(String(value));
    return text === '' ? undefined : text;
}

function dateAndPlace(level: number, date: string | undefined, place: string | undefined): string {

    return (date ? gedcomLine(level, 'DATE', gedcomDate(date)) : '') + (place ? gedcomLine(level, 'PLAC', place) : '');
}

function changeDate(level: number, record: ExportRecord): string {

    const { date, time } = gedcomTimestamp(String(record.updated_at));
    return gedcomLine(level, 'CHAN') + gedcomLine(level + 1, 'DATE', date) + gedcomLine(level + 2, 'TIME', time);
}

const identifier = (level: number, record: ExportRecord) => gedcomLine(level, 'REFN', String(record.id)) + gedcomLine(level + 1, 'TYPE', idType);

/**
 * An event of the events resource at `level`. A family event with no family to hold it (no
 * couple in the file: `coupleOf()`) stays with the individual as `EVEN`, since GEDCOM allows MARR/DIV only in a FAM.
 */
export function eventLines(level: number, event: ExportRecord, inFamily: boolean): string {

    const type = textOf(event, 'type') ?? 'other';
    const tag = eventTags[type];
    const title = textOf(event, 'title') ?? type;
    const head = tag && (inFamily || !familyEventTypes.has(type)) ?
        gedcomLine(level, tag) + gedcomLine(level + 1, 'TYPE', title) :
        gedcomLine(level, 'EVEN', title) + gedcomLine(level + 1, 'TYPE', type);

    const description = textOf(event, 'description');
    return head + dateAndPlace(level + 1, textOf(event, 'date'), textOf(event, 'place')) + (description ? gedcomLine(level + 1, 'NOTE', description) : '');
}

export interface IndividualLinks {
    xref: string;
    events: readonly ExportRecord[];
    childOf?: string;
    partnerIn: readonly string[];
    treeXref?: string;
}

/**
 * A NAME structure. Only the NAME line needs its slashes for the surname's bounds; GIVN and SURN
 * are GEDCOM 7 Text, so they carry the parts as stored (a line break becomes a CONT line). A
 * name that leaves nothing for the NAME line (only tabs, line breaks or banned characters) is
 * left out: a GEDCOM personal name cannot be empty.
 */
function nameLines(person: ExportRecord, surname: string | undefined, type?: string): string {

    const given = textOf(person, 'first_name');
    const name = personalName(given ?? '', surname ?? '');
    if (name === '') {
        return '';
    }

    return gedcomLine(1, 'NAME', name) +
        (type ? gedcomLine(2, 'TYPE', type) : '') +
        (given ? gedcomLine(2, 'GIVN', given) : '') +
        (surname ? gedcomLine(2, 'SURN', surname) : '');
}

function lifeEvent(tag: string, date: string | undefined, place: string | undefined): string {

    return date || place ? gedcomLine(1, tag) + dateAndPlace(2, date, place) : '';
}

/** A person as an INDI record: names, sex, birth and death, their events and family links. */
export function individualRecord(person: ExportRecord, links: IndividualLinks): string {

    const birthName = textOf(person, 'birth_name');
    const notes = textOf(person, 'notes');
    return gedcomLine(0, 'INDI', undefined, links.xref) +
        nameLines(person, textOf(person, 'last_name')) +
        (birthName ? nameLines(person, birthName, 'BIRTH') : '') +
        gedcomLine(1, 'SEX', sexes[textOf(person, 'gender') ?? 'unknown'] ?? 'U') +
        lifeEvent('BIRT', textOf(person, 'birth_date'), textOf(person, 'birth_place')) +
        lifeEvent('DEAT', textOf(person, 'death_date'), textOf(person, 'death_place')) +
        links.events.map((event) => eventLines(1, event, false)).join('') +
        (links.childOf ? pointerLine(1, 'FAMC', links.childOf) : '') +
        links.partnerIn.map((family) => pointerLine(1, 'FAMS', family)).join('') +
        (notes ? gedcomLine(1, 'NOTE', notes) : '') +
        (links.treeXref ? pointerLine(1, 'SNOTE', links.treeXref) : '') +
        identifier(1, person) +
        changeDate(1, person);
}

/** A person known only through events (not in the file's persons): their id and those events. */
export function eventOnlyIndividual(xref: string, personId: string, events: readonly ExportRecord[]): string {

    return gedcomLine(0, 'INDI', undefined, xref) +
        events.map((event) => eventLines(1, event, false)).join('') +
        gedcomLine(1, 'REFN', personId) + gedcomLine(2, 'TYPE', idType);
}

export interface FamilyMembers {
    xref: string;
    /** Partner xrefs, each with the person's gender, in a stable order. */
    partners: { xref: string; gender?: string }[];
    children: string[];
    events: readonly ExportRecord[];
}

/**
 * A FAM record. GEDCOM 7's HUSB and WIFE are partner slots that imply no sex; as a layout hint a
 * male partner takes HUSB and a female partner WIFE (a lone one too), otherwise the order decides.
 */
export function familyRecord(family: FamilyMembers): string {

    const partners = [...family.partners].sort((a, b) => Number(b.gender === 'male') - Number(a.gender === 'male') || Number(a.gender === 'female') - Number(b.gender === 'female'));
    const slots = partners.length === 1 && partners[0].gender === 'female' ? ['WIFE'] : ['HUSB', 'WIFE'];
    return gedcomLine(0, 'FAM', undefined, family.xref) +
        partners.map((partner, index) => pointerLine(1, slots[index], partner.xref)).join('') +
        family.children.map((child) => pointerLine(1, 'CHIL', child)).join('') +
        family.events.map((event) => eventLines(1, event, true)).join('');
}

/** A tree as a shared note that its persons point to: the name, then the description. */
export function treeRecord(xref: string, tree: ExportRecord): string {

    const description = textOf(tree, 'description');
    return gedcomLine(0, 'SNOTE', [textOf(tree, 'name') ?? 'Tree', description].filter(Boolean).join('\n'), xref) +
        identifier(1, tree) +
        changeDate(1, tree);
}

/** The header: GEDCOM 7.0, this service as the source, when, and what the file holds. */
export function headerRecord(generatedAt: Date, note: string): string {

    const { date, time } = gedcomTimestamp(generatedAt);
    return gedcomLine(0, 'HEAD') +
        gedcomLine(1, 'GEDC') + gedcomLine(2, 'VERS', '7.0') +
        gedcomLine(1, 'SOUR', 'family-records') + gedcomLine(2, 'NAME', 'Family Records API') +
        gedcomLine(1, 'DATE', date) + gedcomLine(2, 'TIME', time) +
        gedcomLine(1, 'NOTE', note);
}

export const trailer = gedcomLine(0, 'TRLR');
