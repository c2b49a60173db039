import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';
import { UniqueConstraintError } from 'sequelize';

import { migrator, withEmptyDatabase } from '../../helpers/migrations';
import { testVariant } from '../../helpers/server';

export const lab = Lab.script();
const { describe, it } = lab;

describe(`migration 0010-idempotency-keys on ${testVariant}`, () => {

    it('adds the table of the answers to keyed creates, one per API key and key text, and down() drops it', async () => {

        await withEmptyDatabase(async (sequelize) => {

            const umzug = migrator(sequelize);
            await umzug.up({ to: '0010-idempotency-keys' });
            const queryInterface = sequelize.getQueryInterface();
            expect(Object.keys(await queryInterface.describeTable('idempotency_keys')).sort()).to.equal([
                'api_key_id', 'created_at', 'family_long_id', 'fingerprint', 'idempotency_key', 'method', 'path', 'response_body', 'response_location', 'response_status'
            ]);

            await queryInterface.bulkInsert('families', [{ family_long_id: 'fam_1', name: 'F', plan: 'family', api_enabled: false, api_resources: '[]', created_at: new Date(), updated_at: new Date() }]);
            await queryInterface.bulkInsert('api_keys', ['key_1', 'key_2'].map((id) => ({
                id, family_long_id: 'fam_1', name: id, display_prefix: 'fr_', last_four: '0000', secret_hash: id, resource_scopes: '[]', operation_scopes: '[]', created_by: 'test', created_at: new Date(), updated_at: new Date()
            })));
            const entry = (apiKeyId: string) => ({
                api_key_id: apiKeyId, idempotency_key: 'same text', family_long_id: 'fam_1', method: 'POST', path: '/api/v1/persons',
                fingerprint: '0'.repeat(64), response_status: 201, response_body: '{}', response_location: 'http://x/1', created_at: new Date()
            });
            await queryInterface.bulkInsert('idempotency_keys', [entry('key_1'), entry('key_2')]);
            await expect(queryInterface.bulkInsert('idempotency_keys', [entry('key_1')])).to.reject(UniqueConstraintError);

            await umzug.down();
            expect(await queryInterface.showAllTables()).to.not.include('idempotency_keys');
        });
    });
});
