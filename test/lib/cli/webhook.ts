import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { familyWithKey } from '../../helpers/server';
import { cliTestTimeout, runCli, runCliJson, testServerWithCliEnvironment } from './run';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

// A public address, so the CLI's check needs no DNS; nothing is ever sent to it: no worker
// runs (the test server does not listen) and the family writes nothing after.
const publicUrl = 'https://93.184.216.34/hook';

describe('family-records webhook create', { timeout: cliTestTimeout }, () => {

    let server: Server;
    let env: NodeJS.ProcessEnv;

    before(async () => {

        ({ server, env } = await testServerWithCliEnvironment());
    });

    after(() => server.stop());

    it('adds an endpoint and prints its secret once, as JSON', async () => {

        const family = await familyWithKey(server);
        const printed = await runCliJson(['webhook', 'create', '--family', family.familyLongId, '--url', publicUrl, '--resources', 'persons,trees', '--description', 'Genealogy sync'], env);

        expect(printed).to.include({ family_long_id: family.familyLongId, url: publicUrl, resources: ['persons', 'trees'], description: 'Genealogy sync' });
        expect(printed.id).to.match(/^whe_/);
        expect(printed.secret).to.match(/^whsec_/);

        const endpoint = await server.plugins.webhooks.findEndpoint(family.familyLongId, printed.id);
        expect(endpoint.created_by).to.equal('cli');
        expect(endpoint.secret_last_four).to.equal(printed.secret.slice(-4));

        const [audited] = await server.app.services.models.AuditEvent.findAll({ where: { family_long_id: family.familyLongId } });
        expect(audited.toJSON()).to.include({ action: 'webhook.create', actor_id: 'cli', target: printed.id, detail: `${publicUrl} (persons, trees)` });
    });

    it('stores the URL in its normalised form, the one that was checked', async () => {

        const family = await familyWithKey(server);
        const printed = await runCliJson(['webhook', 'create', '--family', family.familyLongId, '--url', 'HTTPS://93.184.216.34:443/a/../hook', '--resources', 'persons'], env);

        expect(printed.url).to.equal(publicUrl);
        expect((await server.plugins.webhooks.findEndpoint(family.familyLongId, printed.id)).url).to.equal(publicUrl);
    });

    it('reads a resource named twice as once, as api enable and key create do', async () => {

        const family = await familyWithKey(server);
        const printed = await runCliJson(['webhook', 'create', '--family', family.familyLongId, '--url', publicUrl, '--resources', 'persons, persons,'], env);

        expect(printed.resources).to.equal(['persons']);
    });

    it('prints the secret for a person, with a warning that it is shown once', async () => {

        const family = await familyWithKey(server);
        const outcome = await runCli(['webhook', 'create', '--family', family.familyLongId, '--url', publicUrl, '--resources', 'persons'], env);

        expect(outcome.exitCode).to.equal(0);
        expect(outcome.stdout).to.match(/secret: +whsec_/);
        expect(outcome.stdout).to.include('shown only this once');
    });

    it('explains a refused destination in words', async () => {

        const family = await familyWithKey(server);
        const loopback = await runCli(['webhook', 'create', '--family', family.familyLongId, '--url', 'https://127.0.0.1/hook', '--resources', 'persons'], env);
        expect(loopback.exitCode).to.equal(1);
        expect(loopback.stdout).to.equal('');
        expect(loopback.stderr).to.equal('error: url: The URL names 127.0.0.1, a loopback address, not a public one.\n');

        const port = await runCli(['webhook', 'create', '--family', family.familyLongId, '--url', 'https://93.184.216.34:8443/hook', '--resources', 'persons'], env);
        expect(port.stderr).to.equal('error: url: The URL must use port 443, not 8443.\n');

        const ambiguous = await runCli(['webhook', 'create', '--family', family.familyLongId, '--url', 'https://93.184.216.34\\@127.0.0.1/', '--resources', 'persons'], env);
        expect(ambiguous.exitCode).to.equal(1);
        expect(ambiguous.stderr).to.equal('error: url: The URL must not contain a backslash: parsers disagree on whether it ends the host.\n');

        const missing = await runCli(['webhook', 'create', '--family', family.familyLongId, '--resources', 'persons'], env);
        expect(missing.exitCode).to.equal(2);
        expect(missing.stderr).to.startWith('error: missing --url');
    });
});
