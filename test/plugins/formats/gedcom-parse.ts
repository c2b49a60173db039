/*
 * A strict reader of the GEDCOM 7.0 files the API writes, for the tests: every line must match
 * the grammar of FamilySearch GEDCOM 7.0 §1 (Lines), levels nest one at a time, every structure
 * has a payload or substructures, dates are Gregorian dates of §2 (no year 0), cross-references
 * are unique and every pointer resolves, family links go both ways.
 */
import { expect } from '@hapi/code';

export interface GedcomNode {
    tag: string;
    xref?: string;
    /** The payload, CONT lines joined with `\n`, the leading `@@` unescaped. */
    value?: string;
    children: GedcomNode[];
}

const line = /^(0|[1-9]\d*) (?:@([A-Z0-9_]+)@ )?([A-Z][A-Z0-9_]*|_[A-Z0-9_]+)(?: ((?:[\t\x20-\x3f\x41-\u{10ffff}]|@@)[\t\x20-\u{10ffff}]*|@[A-Z0-9_]+@))?$/u;
const banned = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\ufffe\uffff]/;
const pointer = /^@([A-Z0-9_]+)@$/;
/** `[[day D] month D] year [D epoch]` of the Gregorian calendar, which has no year 0. */
const gregorianDate = /^(?:(?:(?:[1-9]|[12]\d|3[01]) )?(?:JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC) )?[1-9]\d*(?: BCE)?$/;

export const child = (node: GedcomNode, tag: string): GedcomNode | undefined => node.children.find((candidate) => candidate.tag === tag);
export const children = (node: GedcomNode, tag: string): GedcomNode[] => node.children.filter((candidate) => candidate.tag === tag);
export const pointerOf = (node: GedcomNode | undefined): string | undefined => pointer.exec(node?.value ?? '')?.[1];

/** Parses and validates a whole file; returns its records (HEAD first, TRLR last). */
export function parseGedcom(text: string): GedcomNode[] {

    expect(text.startsWith('\ufeff0 HEAD\r\n'), 'a BOM, then the header').to.be.true();
    expect(text.endsWith('0 TRLR\r\n')).to.be.true();
    expect(banned.test(text), 'no banned characters').to.be.false();

    const lines = text.slice(1, -2).split('\r\n');
    const stack: GedcomNode[] = [];
    const records: GedcomNode[] = [];
    for (const [index, raw] of lines.entries()) {
        const match = line.exec(raw);
        expect(match, `line ${index + 1} is not a GEDCOM 7 line: ${JSON.stringify(raw)}`).to.exist();
        const [, levelText, xref, tag, payload] = match!;
        const level = Number(levelText);
        expect(level, `line ${index + 1} skips a level`).to.be.at.most(stack.length);
        const value = payload?.startsWith('@@') ? payload.slice(1) : payload;

        if (tag === 'CONT') {
            const continued = stack[level - 1];
            continued.value = `${continued.value ?? ''}\n${value ?? ''}`;
            continue;
        }

        const node: GedcomNode = { tag, xref, value, children: [] };
        stack.length = level;
        (level === 0 ? records : stack[level - 1].children).push(node);
        stack.push(node);
    }

    expect(records[0].tag).to.equal('HEAD');
    expect(records[records.length - 1].tag).to.equal('TRLR');
    records.slice(0, -1).forEach(assertPayloads);
    assertPointersResolve(records);
    assertFamilyLinksGoBothWays(records);
    return records;
}

/** GEDCOM 7 §1: "A structure must have either a non-empty payload or at least 1 substructure"; a DATE holds a date. */
function assertPayloads(node: GedcomNode): void {

    expect(Boolean(node.value) || node.children.length > 0, `${node.tag} ${node.xref ?? ''} has neither a payload nor substructures`).to.be.true();
    if (node.tag === 'DATE') {
        expect(node.value, 'a GEDCOM date').to.match(gregorianDate);
    }

    node.children.forEach(assertPayloads);
}

function assertPointersResolve(records: GedcomNode[]): void {

    const xrefs = records.filter((record) => record.xref).map((record) => record.xref!);
    expect(new Set(xrefs).size, 'cross-references are unique').to.equal(xrefs.length);
    const walk = (node: GedcomNode): void => {

        const target = pointerOf(node);
        if (target) {
            expect(xrefs, `${node.tag} points at @${target}@`).to.include(target);
        }

        node.children.forEach(walk);
    };

    records.forEach(walk);
}

function assertFamilyLinksGoBothWays(records: GedcomNode[]): void {

    const byXref = new Map(records.filter((record) => record.xref).map((record) => [record.xref!, record]));
    for (const family of records.filter((record) => record.tag === 'FAM')) {
        for (const partner of [...children(family, 'HUSB'), ...children(family, 'WIFE')]) {
            expect(children(byXref.get(pointerOf(partner)!)!, 'FAMS').map(pointerOf)).to.include(family.xref);
        }

        for (const member of children(family, 'CHIL')) {
            expect(children(byXref.get(pointerOf(member)!)!, 'FAMC').map(pointerOf)).to.include(family.xref);
        }
    }

    for (const individual of records.filter((record) => record.tag === 'INDI')) {
        for (const link of children(individual, 'FAMS')) {
            const family = byXref.get(pointerOf(link)!)!;
            expect([...children(family, 'HUSB'), ...children(family, 'WIFE')].map(pointerOf)).to.include(individual.xref);
        }

        for (const link of children(individual, 'FAMC')) {
            expect(children(byXref.get(pointerOf(link)!)!, 'CHIL').map(pointerOf)).to.include(individual.xref);
        }
    }
}
