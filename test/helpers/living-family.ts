/*
 * The shared fixture of the living-person privacy tests: one family whose persons cover every case
 * of the living rule (policies/privacy.yaml), with records of the other resources that concern
 * living and dead persons, and two keys of it: one `full`, one `redacted`.
 */
import type { Server, ServerInjectResponse } from '@hapi/hapi';
import { expect } from '@hapi/code';

import { createApiKey } from '../../lib/accounts/api-keys';
import { livingCutoff, livingPersonsPolicyOf } from '../../lib/privacy/living-persons';
import { sampleFile } from '../plugins/files/fixtures';
import { allOperations, allResources, familyWithKey, keyFixture, type FamilyFixture } from './server';

/** In a hidden field of every record that concerns a living person, and nowhere else: a search for it must find nothing with a redacted key. */
export const livingMarker = 'Quillfeather';
/** In the searchable fields of the records of dead persons: a redacted key still finds them. */
export const deadMarker = 'Marshwood';

/** The persons of the family, by what the living rule makes of them. */
export const livingRoles = [
    'livingRecent',                 // born 1990-07-14: parents deadByDeathDate and deadByDeathEvent, spouse unknownBirth
    'unknownBirth',                 // no birth date, no events
    'unknownBirthRecentEvent',      // no birth date, a graduation in 2012-06
    'bornRecentlyWithOldEvent',     // born 1988; an event of hers dated 1890 does not count, as her birth is known
    'livingChild',                  // born 2019-03, child of livingRecent and unknownBirth
    'edgeDay',                      // born on the cutoff day itself
    'edgeMonth',                    // born in the cutoff's month (YYYY-MM)
    'edgeYear'                      // born in the cutoff's year (YYYY)
] as const;

export const deadRoles = [
    'deadByDeathDate',              // death_date set; spouse deadByDeathEvent
    'deadByDeathEvent',             // no death_date; an event of type death
    'deadByBurialEvent',            // no dates at all; an undated burial event
    'unknownBirthOldEvent',         // no birth date; a baptism in 1850
    'dayBeforeEdge',                // born the day before the cutoff
    'monthBeforeEdge',              // born in the month before the cutoff's (YYYY-MM)
    'yearBeforeEdge'                // born in the year before the cutoff's (YYYY)
] as const;

export type PersonRole = typeof livingRoles[number] | typeof deadRoles[number];

/** Records of events, gallery, documents and history: of livingRecent, of deadByDeathDate, of nobody (no person_id). */
export type ConcernRole = 'ofLiving' | 'ofDead' | 'ofNobody';
export const concernRoles: readonly ConcernRole[] = ['ofLiving', 'ofDead', 'ofNobody'];

export interface LivingFamily {
    familyLongId: string;
    /** A key with `living_persons: full`. */
    full: FamilyFixture;
    /** A key with `living_persons: redacted`, every resource and operation. */
    redacted: FamilyFixture;
    /** livingCutoff() of the shipped policy, today. */
    cutoff: string;
    persons: Record<PersonRole, string>;
    /** The ids of the persons presumed living. */
    living: ReadonlySet<string>;
    events: Record<ConcernRole, string>;
    gallery: Record<ConcernRole, string>;
    documents: Record<ConcernRole, string>;
    history: Record<ConcernRole, string>;
    /** The uploaded files' contents, by record. */
    files: { gallery: Record<ConcernRole, Buffer>; documents: Record<ConcernRole, Buffer> };
}

/** A date `days` days, `months` months or `years` years before a full date, as `YYYY-MM-DD`. */
function shifted(date: string, { days = 0, months = 0, years = 0 }): string {

    const [year, month, day] = date.split('-').map(Number);
    const result = new Date(0);
    result.setUTCFullYear(year - years, month - 1 - months, day - days);
    return result.toISOString().slice(0, 10);
}

/** A key with `living_persons: redacted` of the family, on every resource and operation unless narrowed. */
export async function redactedKey(server: Server, familyLongId: string, options: { resources?: string[]; operations?: string[] } = {}): Promise<FamilyFixture> {

    const { key, apiKey } = await createApiKey(server.app.services.accounts, {
        familyLongId,
        name: 'redacted key',
        resources: options.resources ?? allResources,
        operations: options.operations ?? allOperations,
        createdBy: 'test',
        livingPersons: 'redacted'
    });

    return keyFixture(server, familyLongId, apiKey.id, key);
}

const created = (response: ServerInjectResponse): string => {

    expect(response.statusCode, response.payload).to.equal(201);
    return JSON.parse(response.payload).data.id;
};

/** A new family of the living-rule cases on `server` (each call makes its own: tests never see each other's data). */
export async function livingFamily(server: Server): Promise<LivingFamily> {

    const full = await familyWithKey(server);
    const cutoff = livingCutoff(livingPersonsPolicyOf(server.app.services.policyStore.current()));

    const person = (body: Record<string, unknown>) => full.inject('POST', '/api/v1/persons', body).then(created);
    const event = (body: Record<string, unknown>) => full.inject('POST', '/api/v1/events', body).then(created);

    const deadByDeathDate = await person({ first_name: 'Hugo', last_name: deadMarker, birth_date: '1931-04-02', birth_place: 'Old Harbour', death_date: '1999-11', death_place: 'Old Harbour', notes: `Fisherman, ${deadMarker} line.` });
    const deadByDeathEvent = await person({ first_name: 'Rosa', last_name: deadMarker, birth_date: '1934', spouse_id: deadByDeathDate });
    const unknownBirth = await person({ first_name: 'Nell', last_name: livingMarker, gender: 'female', notes: `Nell ${livingMarker}, who keeps the letters.` });
    const livingRecent = await person({
        first_name: 'Livia', last_name: livingMarker, birth_name: `${livingMarker}-Born`, gender: 'female', birth_date: '1990-07-14',
        birth_place: 'Marrow Bay', notes: `Livia ${livingMarker} lives in Marrow Bay.`, parent_1_id: deadByDeathDate, parent_2_id: deadByDeathEvent, spouse_id: unknownBirth
    });

    const persons: Record<PersonRole, string> = {
        livingRecent,
        unknownBirth,
        unknownBirthRecentEvent: await person({ first_name: 'Tamsin', last_name: livingMarker }),
        bornRecentlyWithOldEvent: await person({ first_name: 'Ida', last_name: livingMarker, birth_date: '1988' }),
        livingChild: await person({ first_name: 'Pip', last_name: livingMarker, birth_date: '2019-03', parent_1_id: livingRecent, parent_2_id: unknownBirth }),
        edgeDay: await person({ first_name: 'Edda', last_name: livingMarker, birth_date: cutoff }),
        edgeMonth: await person({ first_name: 'Emmet', last_name: livingMarker, birth_date: cutoff.slice(0, 7) }),
        edgeYear: await person({ first_name: 'Ewan', last_name: livingMarker, birth_date: cutoff.slice(0, 4) }),
        deadByDeathDate,
        deadByDeathEvent,
        deadByBurialEvent: await person({ first_name: 'Anton', last_name: deadMarker }),
        unknownBirthOldEvent: await person({ first_name: 'Elias', last_name: deadMarker }),
        dayBeforeEdge: await person({ first_name: 'Dora', last_name: deadMarker, birth_date: shifted(cutoff, { days: 1 }) }),
        monthBeforeEdge: await person({ first_name: 'Mona', last_name: deadMarker, birth_date: shifted(`${cutoff.slice(0, 7)}-01`, { months: 1 }).slice(0, 7) }),
        yearBeforeEdge: await person({ first_name: 'Yann', last_name: deadMarker, birth_date: String(Number(cutoff.slice(0, 4)) - 1).padStart(4, '0') })
    };

    // The events that decide: they concern persons as the other records do.
    await event({ title: `Death of Rosa ${deadMarker}`, type: 'death', date: '2004-06-12', person_id: deadByDeathEvent });
    await event({ title: `Burial of Anton ${deadMarker}`, type: 'burial', person_id: persons.deadByBurialEvent });
    await event({ title: `Baptism of Elias ${deadMarker}`, type: 'baptism', date: '1850', person_id: persons.unknownBirthOldEvent });
    await event({ title: `Graduation of Tamsin ${livingMarker}`, type: 'graduation', date: '2012-06', person_id: persons.unknownBirthRecentEvent });
    await event({ title: `Heirloom of Ida ${livingMarker}`, type: 'other', date: '1890', person_id: persons.bornRecentlyWithOldEvent });

    const concerned = { ofLiving: livingRecent, ofDead: deadByDeathDate, ofNobody: null };
    const about = (role: ConcernRole) => (role === 'ofNobody' ? 'the family' : role === 'ofLiving' ? `Livia ${livingMarker}` : `Hugo ${deadMarker}`);

    const events = {} as Record<ConcernRole, string>;
    const gallery = {} as Record<ConcernRole, string>;
    const documents = {} as Record<ConcernRole, string>;
    const history = {} as Record<ConcernRole, string>;
    const files = { gallery: {} as Record<ConcernRole, Buffer>, documents: {} as Record<ConcernRole, Buffer> };
    for (const role of concernRoles) {
        const person_id = concerned[role];
        events[role] = await event({ title: `Moving day of ${about(role)}`, type: 'migration', date: '2015-08-01', place: 'Marrow Bay', description: `Notes on ${about(role)}.`, person_id });
        history[role] = created(await full.inject('POST', '/api/v1/history', { title: `Story of ${about(role)}`, period: '1990s', occurred_on: '1995', place: 'Marrow Bay', body: `A story of ${about(role)}.`, person_id }));

        files.gallery[role] = sampleFile('png');
        gallery[role] = created(await full.inject('POST', '/api/v1/gallery', {
            title: `Portrait of ${about(role)}`, description: `Taken of ${about(role)}.`, taken_on: '2001-05', place: 'Marrow Bay', person_id,
            original_name: `${role}.png`, file_base64: files.gallery[role].toString('base64')
        }));

        files.documents[role] = sampleFile('pdf');
        documents[role] = created(await full.inject('POST', '/api/v1/documents', {
            title: `Letter of ${about(role)}`, category: 'letter', document_date: '2003-02-01', description: `Written by ${about(role)}.`, person_id,
            original_name: `${role}.pdf`, file_base64: files.documents[role].toString('base64')
        }));
    }

    const redacted = await redactedKey(server, full.familyLongId);
    return {
        familyLongId: full.familyLongId, full, redacted, cutoff, persons, events, gallery, documents, history, files,
        living: new Set(livingRoles.map((role) => persons[role]))
    };
}
