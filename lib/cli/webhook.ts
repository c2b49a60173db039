import { commandGroup, type Command } from './command';
import { CliError } from './errors';

const usage = 'webhook create --family ID --url URL --resources a,b [--json]';

/** Part of the contract (DESIGN.md §6), not of this version yet: says so instead of pretending. */
const notYetAvailable: Command = {
    usage: [usage],
    help: `  ${usage}\n    Arrives with the webhooks capability; not available in this version.`,
    run() {

        return Promise.reject(new CliError('webhook create arrives with the webhooks capability: this version has no webhooks yet', 2));
    }
};

export const webhookCommands = commandGroup('webhook', { create: notYetAvailable });
