import { auditCliCommand, cliActorId } from '../audit-log';
import { command, commandGroup, commaList } from './command';
import { jsonOption, listed, printResult } from './output';
import { withServer } from './services';

export const webhookCommands = commandGroup('webhook', {
    create: command({
        usage: 'webhook create --family ID --url URL --resources a,b [--description TEXT] [--json]',
        description: 'Adds a webhook endpoint and prints its signing secret: the only time the secret is shown.\nThe URL must be public HTTPS on port 443 (policies/webhooks.yaml says exactly what is\nallowed); the resources must be among those the family exposes (api enable), and the\nplan must allow another endpoint.',
        options: { family: { type: 'string' }, url: { type: 'string' }, resources: { type: 'string' }, description: { type: 'string' }, ...jsonOption },
        required: ['family', 'url', 'resources'],
        async run({ values }) {

            const { endpoint, secret } = await withServer(async (server) => {

                const created = await server.plugins.webhooks.createEndpoint(values.family, {
                    url: values.url,
                    description: values.description,
                    resources: commaList(values.resources)
                }, cliActorId);
                const { id, family_long_id: familyLongId, url, resources } = created.endpoint;
                await auditCliCommand(server.app.services.models, { action: 'webhook.create', familyLongId, target: id, detail: `${url} (${resources.join(', ')})` });
                return created;
            });

            printResult(values.json, {
                id: endpoint.id,
                family_long_id: endpoint.family_long_id,
                url: endpoint.url,
                description: endpoint.description,
                resources: endpoint.resources,
                secret
            }, () => [
                `Created webhook endpoint ${endpoint.id} for family ${endpoint.family_long_id}`,
                `  url:        ${endpoint.url}`,
                `  resources:  ${listed(endpoint.resources)}`,
                `  secret:     ${secret}`,
                '  The secret is shown only this once: store it where the receiver verifies signatures.'
            ]);
        }
    })
});
