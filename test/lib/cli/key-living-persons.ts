import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { createFamily, enableApi } from '../../../lib/accounts/families';
import { cliTestTimeout, runCli, runCliJson, testServerWithCliEnvironment } from './run';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('family-records key create --living-persons', { timeout: cliTestTimeout }, () => {

    let server: Server;
    let env: NodeJS.ProcessEnv;
    let familyLongId: string;

    before(async () => {

        ({ server, env } = await testServerWithCliEnvironment());
        familyLongId = (await createFamily(server.app.services.accounts, { name: 'The Private', plan: 'family' })).family_long_id;
        await enableApi(server.app.services.accounts, familyLongId, ['persons']);
    });

    after(() => server.stop());

    const create = (...more: string[]) => ['key', 'create', '--family', familyLongId, '--name', 'Public tree', '--resources', 'persons', ...more];

    it('creates a key hiding living persons\' details, says so, and records it', async () => {

        const key = await runCliJson(create('--living-persons', 'redacted'), env);
        expect(key).to.include({ living_persons: 'redacted', resources: ['persons'] });
        expect((await server.app.services.models.ApiKey.findByPk(key.id))!.living_persons).to.equal('redacted');
        const audit = await server.app.services.models.AuditEvent.findOne({ where: { target: key.id, action: 'api_key.create' } });
        expect(audit!.detail).to.equal('“Public tree”: persons / read, search, sort, filter / living persons redacted');
    });

    it('creates a key seeing living persons in full unless told otherwise, and says so', async () => {

        const printed = await runCli(create(), env);
        expect(printed.exitCode).to.equal(0);
        expect(printed.stdout).to.contain('\n  living persons: full\n');
        const id = /Created API key (key_\w+)/.exec(printed.stdout)![1];
        expect((await server.app.services.models.ApiKey.findByPk(id))!.living_persons).to.equal('full');
    });

    it('refuses anything but full or redacted in words, creating nothing', async () => {

        const before = await server.app.services.models.ApiKey.count({ where: { family_long_id: familyLongId } });
        const outcome = await runCli(create('--living-persons', 'hidden'), env);
        expect(outcome.exitCode).to.equal(1);
        expect(outcome.stderr).to.contain('Living persons must be one of full, redacted.');
        expect(await server.app.services.models.ApiKey.count({ where: { family_long_id: familyLongId } })).to.equal(before);
    });
});
