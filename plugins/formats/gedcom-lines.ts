/*
 * GEDCOM 7.0 line encoding (FamilySearch GEDCOM 7, chapter 1): `level [@XREF@] TAG [value]`,
 * multi-line payloads as CONT lines, a leading `@` doubled. Version 7 has no line length
 * limit and no CONC, so a long value stays on one line: splitting it would change it.
 */

import { withLineFeeds } from './line-breaks';

export const eol = '\r\n';

/** Characters GEDCOM 7 bans anywhere in a file: C0 controls but tab and line ends, DEL, C1 controls, U+FFFE/U+FFFF. */
const banned = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\ufffe\uffff]/g;

/** What a value holds once written: its line breaks as line feeds (a form feed or U+2028 too), without the characters GEDCOM 7 bans. */
export const gedcomText = (text: string): string => withLineFeeds(text).replace(banned, '');

const withValue = (head: string, value: string) => `${value === '' ? head : `${head} ${value.startsWith('@') ? `@${value}` : value}`}${eol}`;

/** One structure's line, with a CONT line for every further line of its payload. */
export function gedcomLine(level: number, tag: string, payload?: string | null, xref?: string): string {

    const head = xref ? `${level} @${xref}@ ${tag}` : `${level} ${tag}`;
    const [first, ...more] = gedcomText(payload ?? '').split('\n');
    return withValue(head, first) + more.map((line) => withValue(`${level + 1} CONT`, line)).join('');
}

/** A line whose payload points at a record. */
export const pointerLine = (level: number, tag: string, xref: string): string => `${level} ${tag} @${xref}@${eol}`;

const months = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];

/**
 * A genealogy date (`1952`, `1952-03`, `1952-03-07`) as a GEDCOM date: `1952`, `MAR 1952`, `7 MAR 1952`.
 * Its year 0 is ISO 8601's, the year before 1, which GEDCOM's calendar (with no year 0) writes `1 BCE`.
 */
export function gedcomDate(partialDate: string): string {

    const [year, month, day] = partialDate.split('-').map(Number);
    return [day, month ? months[month - 1] : undefined, year === 0 ? '1 BCE' : year].filter((part) => part !== undefined).join(' ');
}

/** A UTC timestamp as GEDCOM's exact date and time: `21 NOV 2026` and `09:00:00.000Z`. */
export function gedcomTimestamp(timestamp: string | Date): { date: string; time: string } {

    const iso = new Date(timestamp).toISOString();
    return { date: gedcomDate(iso.slice(0, 10)), time: iso.slice(11) };
}

/**
 * A personal name, `Given /Surname/`: GEDCOM 7 names are one line and keep slashes for the
 * surname's bounds, so line breaks, tabs and slashes inside the parts become spaces.
 */
export function personalName(given: string, surname: string): string {

    const part = (text: string) => text.replace(/[/\t\r\n]+/g, ' ').replace(/ {2,}/g, ' ').trim();
    return [part(given), surname ? `/${part(surname)}/` : ''].filter(Boolean).join(' ');
}
