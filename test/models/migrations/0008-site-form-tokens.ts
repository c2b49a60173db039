import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';

import { migrator, withEmptyDatabase } from '../../helpers/migrations';
import { testVariant } from '../../helpers/server';

export const lab = Lab.script();
const { describe, it } = lab;

describe(`migration 0008-site-form-tokens on ${testVariant}`, () => {

    it('adds the table of the form tokens sent, and down() drops it', async () => {

        await withEmptyDatabase(async (sequelize) => {

            const umzug = migrator(sequelize);
            await umzug.up({ to: '0008-site-form-tokens' });
            const queryInterface = sequelize.getQueryInterface();
            expect(Object.keys(await queryInterface.describeTable('site_form_tokens')).sort()).to.equal(['expires_at', 'nonce', 'outcome', 'sent_at']);

            await umzug.down();
            expect(await queryInterface.showAllTables()).to.not.include('site_form_tokens');
        });
    });
});
