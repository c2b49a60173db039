import Crypto from 'crypto';
import Path from 'path';

import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';

import { scratchDirectory, testServer } from '../helpers/server';

export const lab = Lab.script();
const { describe, it } = lab;

/*
 * On a database of its own (a scratch SQLite file on every variant): the suite's shared
 * PostgreSQL database runs on its generated secret, and the rule is the service_settings
 * table's, the same on both databases.
 */
const ownDatabase = () => {

    const dataDir = scratchDirectory();
    return { DATA_DIR: dataDir, DATABASE_URL: `sqlite:${Path.join(dataDir, 'own.sqlite')}` };
};

const newSecret = () => Crypto.randomBytes(32).toString('base64url');

describe('SECRET_KEY', () => {

    it('is the database\'s own once a service ran with it: another SECRET_KEY stops start-up', async () => {

        const database = ownDatabase();
        const secret = newSecret();
        await (await testServer({ env: { ...database, SECRET_KEY: secret } })).stop();

        await expect(testServer({ env: { ...database, SECRET_KEY: newSecret() } }))
            .to.reject('Invalid configuration: SECRET_KEY is not the secret this database is used with: API keys, sessions, signed file URLs and webhook secrets would not verify. Set the SECRET_KEY the service runs with (the CLI needs it too).');

        const again = await testServer({ env: { ...database, SECRET_KEY: secret } });
        await again.stop();
    });

    it('missing where the database is used with one stops start-up, and no secret is generated for it', async () => {

        const database = ownDatabase();
        const server = await testServer({ env: { ...database, SECRET_KEY: newSecret() } });
        const { ServiceSetting } = server.app.services.models;
        try {
            await expect(testServer({ env: database }))
                .to.reject('Invalid configuration: SECRET_KEY is not set, but this database is used with one: set the SECRET_KEY the service runs with (the CLI needs it too).');
            expect(await ServiceSetting.findByPk('secret_key')).to.be.null();
        }
        finally {
            await server.stop();
        }
    });

    it('missing on the embedded default: one is generated and kept, and used again at the next start', async () => {

        const database = ownDatabase();
        const first = await testServer({ env: database });
        const pepper = first.app.services.accounts.pepper;
        await first.stop();

        const second = await testServer({ env: database });
        expect(second.app.services.accounts.pepper).to.equal(pepper);
        await second.stop();
    });
});
