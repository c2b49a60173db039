import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';
import { QueryTypes } from 'sequelize';

import { migrator, withEmptyDatabase } from '../../helpers/migrations';
import { testVariant } from '../../helpers/server';

export const lab = Lab.script();
const { describe, it } = lab;

const at = new Date('2025-01-02T03:04:05.678Z');

describe(`migration 0015-api-key-living-persons on ${testVariant}`, () => {

    it('leaves the keys of before it seeing living persons in full, takes a new key\'s choice, and down() removes the column', async () => {

        await withEmptyDatabase(async (sequelize) => {

            const umzug = migrator(sequelize);
            await umzug.up({ to: '0014-messaging-suspension' });
            const queryInterface = sequelize.getQueryInterface();
            await queryInterface.bulkInsert('families', [{ family_long_id: 'fam_migrated', name: 'Migrated', plan: 'family', api_enabled: true, api_resources: '["persons"]', created_at: at, updated_at: at }]);
            const key = { family_long_id: 'fam_migrated', display_prefix: 'frk_AbCd', last_four: 'WxYz', resource_scopes: '["persons"]', operation_scopes: '["read"]', created_by: 'cli', created_at: at, updated_at: at };
            await queryInterface.bulkInsert('api_keys', [{ ...key, id: 'key_before', name: 'Before', secret_hash: 'a'.repeat(64) }]);
            await umzug.up({ to: '0015-api-key-living-persons' });
            await queryInterface.bulkInsert('api_keys', [{ ...key, id: 'key_after', name: 'After', secret_hash: 'b'.repeat(64), living_persons: 'redacted' }]);

            const rows = await sequelize.query('SELECT "id", "living_persons" FROM "api_keys" ORDER BY "id"', { type: QueryTypes.SELECT });
            expect(rows).to.equal([{ id: 'key_after', living_persons: 'redacted' }, { id: 'key_before', living_persons: 'full' }]);
            await expect(sequelize.query('UPDATE "api_keys" SET "living_persons" = NULL WHERE "id" = \'key_before\'')).to.reject();

            await umzug.down();
            const columns = Object.keys(await queryInterface.describeTable('api_keys'));
            expect(columns).to.include('predates_write_scopes');
            expect(columns).to.not.include('living_persons');
        });
    });
});
