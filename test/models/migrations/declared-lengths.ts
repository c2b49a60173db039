import type { Server } from '@hapi/hapi';
import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';

import { resourceNames, resources, storedFileColumns } from '../../../models/resources';
import { testServer, testVariant } from '../../helpers/server';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

/** What the migrations declare the column of each field type to be: its length for the short ones, TEXT for free text. */
const columnOfType = { string: undefined, text: 'TEXT', enum: 32, date: 10, partial_date: 10, integer: 'BIGINT', currency: 3, reference: 32 } as const;

describe(`the migrated tables on ${testVariant}`, () => {

    let server: Server;

    before(async () => {

        server = await testServer();
    });

    after(() => server.stop());

    it('give every declared field a column of the length its validation allows, in characters as PostgreSQL counts them', async () => {

        const queryInterface = server.app.services.sequelize.getQueryInterface();
        for (const name of resourceNames) {
            const resource = resources[name];
            const columns = await queryInterface.describeTable(resource.table);
            for (const [field, declared] of Object.entries({ ...resource.fields, ...(resource.storesFile ? storedFileColumns : {}) })) {
                const length = columnOfType[declared.type] ?? declared.max;
                // SQLite keeps the declared type as written; PostgreSQL names VARCHAR in full.
                const expected = typeof length === 'number' ? [`VARCHAR(${length})`, `CHARACTER VARYING(${length})`] : [length];
                expect(expected, `${name}.${field}`).to.include(columns[field]?.type ?? 'no column');
            }
        }
    });
});
