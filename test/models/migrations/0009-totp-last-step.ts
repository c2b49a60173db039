import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';
import { QueryTypes } from 'sequelize';

import { migrator, withEmptyDatabase } from '../../helpers/migrations';
import { testVariant } from '../../helpers/server';

export const lab = Lab.script();
const { describe, it } = lab;

const at = new Date('2025-01-02T03:04:05.678Z');

describe(`migration 0009-totp-last-step on ${testVariant}`, () => {

    it('gives the users of before it no last time step, so their next code is taken, and down() removes the column', async () => {

        await withEmptyDatabase(async (sequelize) => {

            const umzug = migrator(sequelize);
            await umzug.up({ to: '0008-site-form-tokens' });
            const queryInterface = sequelize.getQueryInterface();
            await queryInterface.bulkInsert('users', [{ id: 'usr_migrated', email: 'migrated@example.com', password_hash: 'x', is_super_admin: false, totp_secret: 'v1.sealed', totp_enabled_at: at, created_at: at, updated_at: at }]);
            await umzug.up({ to: '0009-totp-last-step' });

            const rows = await sequelize.query('SELECT "id", "totp_last_step" FROM "users"', { type: QueryTypes.SELECT });
            expect(rows).to.equal([{ id: 'usr_migrated', totp_last_step: null }]);

            await umzug.down();
            expect(await queryInterface.describeTable('users')).to.not.include('totp_last_step');
        });
    });
});
