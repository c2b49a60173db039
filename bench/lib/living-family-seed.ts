import type { Server } from '@hapi/hapi';

import { recordId } from '../../lib/ids';
import { events } from '../../models/resources/events';
import { persons } from '../../models/resources/persons';

const firstNames = ['Anna', 'Johan', 'Maria', 'Karl', 'Elin', 'Per', 'Ingrid', 'Lars', 'Sofia', 'Nils'];
const lastNames = ['Andersson', 'Berg', 'Carlsson', 'Dahl', 'Ek', 'Fors', 'Holm', 'Lind', 'Nyberg', 'Strand'];
const genders = ['female', 'male', 'other', 'unknown'];
const places = ['Uppsala', 'Göteborg', 'Malmö', 'Lund', 'Visby'];
const batchSize = 1000;
const generation = 37;

type Row = Record<string, unknown>;

/** Person `i`'s birth year: spread over 1850–2020, so that about half are born within the last 110 years. */
const birthYear = (i: number) => 1850 + ((i * 7) % 171);

/** What kind of person `i` is; the mix a family database holds. */
function kindOf(i: number): 'unknown birth' | 'dead by date' | 'dead by event' | 'no death known' {

    if (i % 13 === 0) {
        return 'unknown birth';
    }

    const born = birthYear(i);
    if (born < 1950 && i % 3 !== 0) {
        return 'dead by date';
    }

    return born < 1970 && i % 5 === 0 ? 'dead by event' : 'no death known';
}

/**
 * One family of `count` persons and their events, written straight into the tables (no change events: the list does not
 * read them): dead by a death date, dead by a death or burial event only, of unknown birth with a dated baptism, born too
 * long ago to be living, and living; linked to parents a generation before. Each has a birth (or baptism) event, every
 * other one a marriage, the dead by event a burial. On PostgreSQL both tables are then vacuumed and analysed, as autovacuum does
 * after a bulk insert: the living rule reads an index of events, whose visibility map only a vacuum sets.
 */
export async function seedLivingAndDeadFamily(server: Server, familyLongId: string, count: number): Promise<{ persons: number; events: number }> {

    const { models, sequelize, transaction } = server.app.services;
    const firstCreated = Date.now() - count * 1000;
    const personRows: Row[] = [];
    const eventRows: Row[] = [];
    const event = (personId: string, type: string, date: string | null, i: number) => eventRows.push({
        id: recordId(events.idPrefix),
        family_long_id: familyLongId,
        title: `${type} of person ${i}`,
        type,
        date,
        place: places[i % places.length],
        person_id: personId,
        description: `The ${type} of person number ${i} of the benchmark family.`,
        revision: 1,
        created_at: new Date(firstCreated + i * 1000),
        updated_at: new Date(firstCreated + i * 1000)
    });

    for (let i = 0; i < count; ++i) {
        const id = recordId(persons.idPrefix);
        const kind = kindOf(i);
        const born = birthYear(i);
        const birthDate = kind === 'unknown birth' ? null : `${born}-0${1 + (i % 9)}-1${i % 10}`;
        personRows.push({
            id,
            family_long_id: familyLongId,
            first_name: firstNames[i % firstNames.length],
            last_name: lastNames[Math.floor(i / firstNames.length) % lastNames.length],
            gender: genders[i % genders.length],
            birth_date: birthDate,
            birth_place: places[i % places.length],
            death_date: kind === 'dead by date' ? `${born + 60 + (i % 30)}` : null,
            notes: `Person number ${i} of the benchmark family.`,
            parent_1_id: i >= generation ? personRows[i - generation].id : null,
            revision: 1,
            created_at: new Date(firstCreated + i * 1000),
            updated_at: new Date(firstCreated + i * 1000)
        });
        event(id, kind === 'unknown birth' ? 'baptism' : 'birth', kind === 'unknown birth' ? `${birthYear(i)}` : birthDate, i);
        if (i % 2 === 0) {
            event(id, 'marriage', `${born + 25}`, i);
        }

        if (kind === 'dead by event') {
            event(id, 'burial', `${born + 70}`, i);
        }
    }

    await transaction(async (t) => {

        for (let start = 0; start < personRows.length; start += batchSize) {
            await models.records.persons.bulkCreate(personRows.slice(start, start + batchSize), { transaction: t });
        }

        for (let start = 0; start < eventRows.length; start += batchSize) {
            await models.records.events.bulkCreate(eventRows.slice(start, start + batchSize), { transaction: t });
        }
    });

    if (sequelize.getDialect() === 'postgres') {
        await sequelize.query('VACUUM ANALYZE persons');
        await sequelize.query('VACUUM ANALYZE events');
    }

    return { persons: personRows.length, events: eventRows.length };
}
