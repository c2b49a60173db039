import Path from 'path';

import { expect } from '@hapi/code';
import type { Sequelize } from 'sequelize';
import { SequelizeStorage, Umzug } from 'umzug';

import { openDatabase } from '../../lib/database';
import { migrations } from '../../models/migrations';
import { withScratchDatabase } from './scratch-services';
import { scratchDirectory, testVariant } from './server';

/** Runs `work` on an empty database of the test variant, closed (and on PostgreSQL dropped) afterwards. */
export async function withEmptyDatabase(work: (sequelize: Sequelize) => Promise<void>): Promise<void> {

    const run = async (url: string) => {

        const sequelize = openDatabase(url);
        try {
            await work(sequelize);
        }
        finally {
            await sequelize.close();
        }
    };

    if (testVariant === 'sqlite') {
        return run(`sqlite:${Path.join(scratchDirectory(), 'migrations.sqlite')}`);
    }

    const ran = await withScratchDatabase(process.env.TEST_DATABASE_URL!, 'fr_migration', async (url) => {

        await run(url);
        return true;
    });
    expect(ran, 'PostgreSQL answers').to.be.true();
}

/** The service's migrations on `sequelize`, to run up to (or down from) one of them. */
export const migrator = (sequelize: Sequelize) => new Umzug({
    migrations,
    context: sequelize.getQueryInterface(),
    storage: new SequelizeStorage({ sequelize, tableName: 'schema_migrations' }),
    logger: undefined
});
