import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';
import { QueryTypes } from 'sequelize';

import { migrator, withEmptyDatabase } from '../../helpers/migrations';
import { testVariant } from '../../helpers/server';

export const lab = Lab.script();
const { describe, it } = lab;

const at = new Date('2025-01-02T03:04:05.678Z');

/** A delivery as the service wrote it before 0007, with one attempt log row per trigger given. */
function deliveryBefore(id: string, triggers: string[]) {

    const delivery = {
        id, endpoint_id: 'whe_migrated', family_long_id: 'fam_migrated', event_id: null, event_type: 'persons.created', payload: '{}',
        status: 'pending', attempts: triggers.length, created_at: at, updated_at: at
    };
    const attempts = triggers.map((trigger, index) => ({
        delivery_id: id, endpoint_id: 'whe_migrated', attempt: index + 1, trigger, status_code: 500, latency_ms: 5, started_at: at
    }));
    return { delivery, attempts };
}

describe(`migration 0007-manual-attempts on ${testVariant}`, () => {

    it('counts the attempts made by hand of the deliveries made before it, from their attempt log', async () => {

        await withEmptyDatabase(async (sequelize) => {

            const umzug = migrator(sequelize);
            await umzug.up({ to: '0006-search-text' });
            const queryInterface = sequelize.getQueryInterface();
            await queryInterface.bulkInsert('families', [{ family_long_id: 'fam_migrated', name: 'Migrated', plan: 'family', api_enabled: false, api_resources: '[]', created_at: at, updated_at: at }]);
            await queryInterface.bulkInsert('webhook_endpoints', [{
                id: 'whe_migrated', family_long_id: 'fam_migrated', url: 'https://hooks.example.com/', resources: '["persons"]', secret_encrypted: 'x', secret_last_four: 'abcd',
                created_after_event_id: 0, created_by: 'test', created_at: at, updated_at: at
            }]);
            const before = [
                deliveryBefore('whd_queueonly', ['queue', 'queue']),
                deliveryBefore('whd_redelivered', ['queue', 'redeliver', 'queue', 'redeliver']),
                deliveryBefore('whd_pinged', ['ping', 'redeliver'])
            ];
            await queryInterface.bulkInsert('webhook_deliveries', before.map(({ delivery }) => delivery));
            await queryInterface.bulkInsert('webhook_attempts', before.flatMap(({ attempts }) => attempts));
            await umzug.up();

            const rows = await sequelize.query<{ id: string; attempts: number; manual_attempts: number }>('SELECT "id", "attempts", "manual_attempts" FROM "webhook_deliveries" ORDER BY "id"', { type: QueryTypes.SELECT });
            expect(rows).to.equal([
                { id: 'whd_pinged', attempts: 2, manual_attempts: 2 },
                { id: 'whd_queueonly', attempts: 2, manual_attempts: 0 },
                { id: 'whd_redelivered', attempts: 4, manual_attempts: 2 }
            ]);
        });
    });

    it('is undone by down()', async () => {

        await withEmptyDatabase(async (sequelize) => {

            const umzug = migrator(sequelize);
            await umzug.up({ to: '0007-manual-attempts' });
            await umzug.down();
            expect(await sequelize.getQueryInterface().describeTable('webhook_deliveries')).to.not.include('manual_attempts');
        });
    });
});
