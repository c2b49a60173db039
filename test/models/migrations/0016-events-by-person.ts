import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';

import { migrator, withEmptyDatabase } from '../../helpers/migrations';
import { testVariant } from '../../helpers/server';

export const lab = Lab.script();
const { describe, it } = lab;

describe(`migration 0016-events-by-person on ${testVariant}`, () => {

    it('indexes events by family, person, type and date, and down() drops the index', async () => {

        await withEmptyDatabase(async (sequelize) => {

            const umzug = migrator(sequelize);
            const queryInterface = sequelize.getQueryInterface();
            const indexOnPerson = async () => {

                const indexes = await queryInterface.showIndex('events') as { name: string; fields: { attribute: string }[] }[];
                return indexes.find((index) => index.fields.some((field) => field.attribute === 'person_id'));
            };

            await umzug.up({ to: '0016-events-by-person' });
            const index = await indexOnPerson();
            expect(index?.fields.map((field) => field.attribute)).to.equal(['family_long_id', 'person_id', 'type', 'date']);

            await umzug.down();
            expect(await indexOnPerson()).to.not.exist();
        });
    });
});
