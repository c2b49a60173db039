import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';
import { QueryTypes } from 'sequelize';

import { migrator, withEmptyDatabase } from '../../helpers/migrations';
import { testVariant } from '../../helpers/server';

export const lab = Lab.script();
const { describe, it } = lab;

const at = new Date('2025-01-02T03:04:05.678Z');

describe(`migration 0011-devices on ${testVariant}`, () => {

    it('leaves the users of before it enabled, makes the device tables, and down() removes them all', async () => {

        await withEmptyDatabase(async (sequelize) => {

            const umzug = migrator(sequelize);
            await umzug.up({ to: '0010-idempotency-keys' });
            const queryInterface = sequelize.getQueryInterface();
            await queryInterface.bulkInsert('users', [{ id: 'usr_migrated', email: 'migrated@example.com', password_hash: 'x', is_super_admin: false, created_at: at, updated_at: at }]);
            await umzug.up({ to: '0011-devices' });

            const rows = await sequelize.query('SELECT "id", "disabled_at" FROM "users"', { type: QueryTypes.SELECT });
            expect(rows).to.equal([{ id: 'usr_migrated', disabled_at: null }]);
            const tables = (await queryInterface.showAllTables()).map(String);
            expect(tables).to.include(['device_requests', 'device_grants', 'device_tokens']);

            await umzug.down();
            expect(await queryInterface.describeTable('users')).to.not.include('disabled_at');
            expect((await queryInterface.showAllTables()).map(String)).to.not.include(['device_requests', 'device_grants', 'device_tokens']);
        });
    });
});
