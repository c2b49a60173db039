import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';
import { QueryTypes } from 'sequelize';

import { migrator, withEmptyDatabase } from '../../helpers/migrations';
import { testVariant } from '../../helpers/server';

export const lab = Lab.script();
const { describe, it } = lab;

const at = new Date('2025-01-02T03:04:05.678Z');

describe(`migration 0014-messaging-suspension on ${testVariant}`, () => {

    it('leaves the messaging of the families of before it not suspended, whatever their API, and down() removes the columns', async () => {

        await withEmptyDatabase(async (sequelize) => {

            const umzug = migrator(sequelize);
            await umzug.up({ to: '0011-devices' });
            const queryInterface = sequelize.getQueryInterface();
            await queryInterface.bulkInsert('families', [{ family_long_id: 'fam_migrated', name: 'Migrated', plan: 'family', api_enabled: true, api_resources: '[]', api_suspended_at: at, api_suspension_reason: 'Unpaid', api_suspended_by: 'cli', created_at: at, updated_at: at }]);
            await umzug.up({ to: '0014-messaging-suspension' });

            const rows = await sequelize.query('SELECT "family_long_id", "messaging_suspended_at", "messaging_suspension_reason", "messaging_suspended_by" FROM "families"', { type: QueryTypes.SELECT });
            expect(rows).to.equal([{ family_long_id: 'fam_migrated', messaging_suspended_at: null, messaging_suspension_reason: null, messaging_suspended_by: null }]);

            await umzug.down();
            const columns = Object.keys(await queryInterface.describeTable('families'));
            expect(columns).to.include('api_suspended_at');
            expect(columns.filter((column) => column.startsWith('messaging_'))).to.equal([]);
        });
    });
});
