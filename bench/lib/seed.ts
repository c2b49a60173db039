import type { Server } from '@hapi/hapi';

import { recordId } from '../../lib/ids';
import { persons } from '../../models/resources/persons';

const firstNames = ['Anna', 'Johan', 'Maria', 'Karl', 'Elin', 'Per', 'Ingrid', 'Lars', 'Sofia', 'Nils'];
const lastNames = ['Andersson', 'Berg', 'Carlsson', 'Dahl', 'Ek', 'Fors', 'Holm', 'Lind', 'Nyberg', 'Strand'];
const genders = ['female', 'male', 'other', 'unknown'];
const batchSize = 1000;

/**
 * `count` persons of one family, written straight into the table (no change events: the
 * list does not read them). Creation times are a second apart, as records entered over time.
 * On PostgreSQL the table is then analysed, as autovacuum would within a minute: with no
 * statistics the planner sorts all 10,000 rows instead of reading 51 off the index.
 */
export async function seedPersons(server: Server, familyLongId: string, count: number): Promise<void> {

    const { models, sequelize, transaction } = server.app.services;
    const firstCreated = Date.now() - count * 1000;
    const rows = Array.from({ length: count }, (_, i) => ({
        id: recordId(persons.idPrefix),
        family_long_id: familyLongId,
        first_name: firstNames[i % firstNames.length],
        last_name: lastNames[Math.floor(i / firstNames.length) % lastNames.length],
        gender: genders[i % genders.length],
        birth_date: `${1800 + (i % 200)}-0${1 + (i % 9)}-1${i % 10}`,
        birth_place: 'Uppsala',
        notes: `Person number ${i} of the benchmark family.`,
        revision: 1,
        created_at: new Date(firstCreated + i * 1000),
        updated_at: new Date(firstCreated + i * 1000)
    }));

    await transaction(async (t) => {

        for (let start = 0; start < rows.length; start += batchSize) {
            await models.records.persons.bulkCreate(rows.slice(start, start + batchSize), { transaction: t });
        }
    });

    if (sequelize.getDialect() === 'postgres') {
        await sequelize.query('ANALYZE persons');
    }
}
