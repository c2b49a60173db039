import type { Server } from '@hapi/hapi';
import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import { QueryTypes } from 'sequelize';

import { recordId } from '../../../lib/ids';
import { livingPersonRowSql, livingPersonSql, presumedLiving } from '../../../lib/privacy/living-persons';
import { familyWithKey, testServer } from '../../helpers/server';
import { deadRoles, livingFamily, livingRoles, type LivingFamily } from '../../helpers/living-family';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('the living rule: presumedLiving() and livingPersonSql() agree (living-persons.ts)', () => {

    let server: Server;
    let family: LivingFamily;

    const dialect = () => server.app.services.sequelize.getDialect() as 'sqlite' | 'postgres';
    const select = <T extends object>(sql: string, bind: unknown[]) => server.app.services.sequelize.query<T>(sql, { bind, type: QueryTypes.SELECT });

    /** The SQL's answer for one person id in one family, the id and the family bound as parameters. */
    const livingBySql = async (personId: string | null, familyLongId: string, cutoff = family.cutoff) => {

        const [row] = await select<{ living: number | boolean }>(`SELECT CASE WHEN ${livingPersonSql(dialect(), '$1', '$2', '$3')} THEN 1 ELSE 0 END AS "living"`, [personId, familyLongId, cutoff]);
        return Number(row.living) === 1;
    };

    /** The JavaScript rule's answer, from the stored rows. */
    const livingByJs = async (personId: string, cutoff = family.cutoff) => {

        const [person] = await select<{ birth_date: string | null; death_date: string | null }>('SELECT "birth_date", "death_date" FROM "persons" WHERE "id" = $1 AND "family_long_id" = $2', [personId, family.familyLongId]);
        const events = await select<{ type: string; date: string | null }>('SELECT "type", "date" FROM "events" WHERE "person_id" = $1 AND "family_long_id" = $2', [personId, family.familyLongId]);
        return presumedLiving(person, events, cutoff);
    };

    before(async () => {

        server = await testServer();
        family = await livingFamily(server);
    });

    after(() => server.stop());

    it('finds living exactly the persons the fixture says, in JavaScript and in SQL', async () => {

        for (const role of [...livingRoles, ...deadRoles]) {
            const id = family.persons[role];
            const expected = (livingRoles as readonly string[]).includes(role);
            expect(await livingByJs(id), `${role} by the JavaScript rule`).to.equal(expected);
            expect(await livingBySql(id, family.familyLongId), `${role} by the SQL`).to.equal(expected);
        }
    });

    it('agrees on every person at cutoffs on either side of each birth and event date', async () => {

        const cutoffs = ['1850-01-01', '1850-12-31', '1851-01-01', '1890-06-15', '1934-12-31', '1935-01-01', '1988-12-31', '1989-01-01', '1990-07-14', '1990-07-15',
            '2012-06-30', '2012-07-01', '2019-03-31', '2019-04-01', '2100-01-01'];
        for (const cutoff of cutoffs) {
            for (const id of Object.values(family.persons)) {
                expect(await livingBySql(id, family.familyLongId, cutoff), `${id} at ${cutoff}`).to.equal(await livingByJs(id, cutoff));
            }
        }
    });

    it('reads the same inside a query over persons (livingPersonRowSql() too) and over the records that name them', async () => {

        const persons = await select<{ id: string; living: number | boolean }>(`SELECT "persons"."id", CASE WHEN ${livingPersonSql(dialect(), '"persons"."id"', '"persons"."family_long_id"', '$2')} THEN 1 ELSE 0 END AS "living"` +
            ' FROM "persons" WHERE "persons"."family_long_id" = $1', [family.familyLongId, family.cutoff]);
        expect(persons.filter((row) => Number(row.living) === 1).map((row) => row.id).sort()).to.equal([...family.living].sort());

        const rows = await select<{ id: string; living: number | boolean }>(`SELECT "persons"."id", CASE WHEN ${livingPersonRowSql(dialect(), '"persons"', '$2')} THEN 1 ELSE 0 END AS "living"` +
            ' FROM "persons" WHERE "persons"."family_long_id" = $1', [family.familyLongId, family.cutoff]);
        expect(rows.filter((row) => Number(row.living) === 1).map((row) => row.id).sort(), 'livingPersonRowSql()').to.equal([...family.living].sort());

        const events = await select<{ id: string; living: number | boolean }>(`SELECT "events"."id", CASE WHEN ${livingPersonSql(dialect(), '"events"."person_id"', '"events"."family_long_id"', '$2')} THEN 1 ELSE 0 END AS "living"` +
            ' FROM "events" WHERE "events"."family_long_id" = $1', [family.familyLongId, family.cutoff]);
        const livingEvents = events.filter((row) => Number(row.living) === 1).map((row) => row.id);
        expect(livingEvents).to.include(family.events.ofLiving);
        expect(livingEvents).to.not.include([family.events.ofDead, family.events.ofNobody]);
        expect(livingEvents, 'a graduation of a living person, and an old event of a person whose birth is known').to.have.length(3);
    });

    it('is false for no person, and for a person id of another family', async () => {

        expect(await livingBySql(null, family.familyLongId)).to.be.false();
        expect(await livingBySql('per_AAAAAAAAAAAAAAAAAAAA', family.familyLongId)).to.be.false();

        const other = await familyWithKey(server);
        expect(await livingBySql(family.persons.livingRecent, other.familyLongId)).to.be.false();
    });

    it('never reads the events of another family, even those naming one of this family\'s persons', async () => {

        const other = await familyWithKey(server);
        const now = new Date();
        await server.app.services.sequelize.query('INSERT INTO "events" ("id", "family_long_id", "title", "type", "date", "person_id", "revision", "created_at", "updated_at") VALUES ($1, $2, $3, $4, $5, $6, 1, $7, $7)',
            { bind: [recordId('evt'), other.familyLongId, 'Forged death', 'death', '1800', family.persons.unknownBirth, now] });

        expect(await livingBySql(family.persons.unknownBirth, family.familyLongId)).to.be.true();
        expect(await livingByJs(family.persons.unknownBirth)).to.be.true();
    });
});
