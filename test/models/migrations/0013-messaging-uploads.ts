import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';
import { QueryTypes } from 'sequelize';

import { migrator, withEmptyDatabase } from '../../helpers/migrations';
import { testVariant } from '../../helpers/server';

export const lab = Lab.script();
const { describe, it } = lab;

const at = new Date('2025-01-02T03:04:05.678Z');

describe(`migration 0013-messaging-uploads on ${testVariant}`, () => {

    it('makes messaging_uploads, whose sizes go past 32 bits, and down() removes it', async () => {

        await withEmptyDatabase(async (sequelize) => {

            const umzug = migrator(sequelize);
            await umzug.up({ to: '0013-messaging-uploads' });
            const queryInterface = sequelize.getQueryInterface();
            await queryInterface.bulkInsert('families', [{ family_long_id: 'fam_migrated', name: 'Migrated', plan: 'family', api_enabled: false, api_resources: '[]', created_at: at, updated_at: at }]);
            await queryInterface.bulkInsert('users', [{ id: 'usr_migrated', email: 'migrated@example.com', password_hash: 'x', is_super_admin: false, family_long_id: 'fam_migrated', created_at: at, updated_at: at }]);
            await queryInterface.bulkInsert('messaging_uploads', [{
                id: 'upl_migrated', family_long_id: 'fam_migrated', user_id: 'usr_migrated', grant_id: null, file_name: 'big.pdf', declared_type: null,
                length_bytes: 5 * 2 ** 30, offset_bytes: 3 * 2 ** 30, media_type: null, completed_at: null, expires_at: at, message_id: null, attached_at: null,
                created_at: at, updated_at: at
            }]);

            const [row] = await sequelize.query<{ length_bytes: string | number; offset_bytes: string | number }>('SELECT "length_bytes", "offset_bytes" FROM "messaging_uploads"', { type: QueryTypes.SELECT });
            expect(Number(row.length_bytes)).to.equal(5 * 2 ** 30);
            expect(Number(row.offset_bytes)).to.equal(3 * 2 ** 30);

            await umzug.down();
            expect((await queryInterface.showAllTables()).map(String)).to.not.include('messaging_uploads');
        });
    });
});
