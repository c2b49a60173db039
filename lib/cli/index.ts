import type { Command } from './command';
import { apiCommands } from './api';
import { demoCommand } from './demo';
import { deviceCommands } from './device';
import { reportError, UsageError } from './errors';
import { familyCommands } from './family';
import { overallHelp } from './help';
import { keyCommands } from './key';
import { migrateCommand } from './migrate';
import { policyCommands } from './policy';
import { serveCommand } from './serve';
import { userCommands } from './user';
import { webhookCommands } from './webhook';

/** The operator CLI's commands (DESIGN.md §6), by name. */
const commands: Readonly<Record<string, Command>> = {
    serve: serveCommand,
    migrate: migrateCommand,
    demo: demoCommand,
    family: familyCommands,
    user: userCommands,
    api: apiCommands,
    key: keyCommands,
    device: deviceCommands,
    webhook: webhookCommands,
    policy: policyCommands
};

const helpFlags = ['--help', '-h'];
const overallUsage = '<command> [options]; family-records --help lists them';

function chosenCommand(name: string): Command {

    if (!Object.hasOwn(commands, name)) {
        throw new UsageError(`unknown command "${name}"`, overallUsage);
    }

    return commands[name];
}

/** The help asked for, or undefined when the command line asks for none. */
function helpText([name, ...rest]: string[]): string | undefined {

    if (name === 'help' || helpFlags.includes(name)) {
        return rest[0] === undefined ? overallHelp(commands) : chosenCommand(rest[0]).help;
    }

    return rest.some((argument) => helpFlags.includes(argument)) ? chosenCommand(name).help : undefined;
}

/** Runs one command line (without `node` and the script); resolves with the exit code. */
export async function runCli(argv: string[]): Promise<number> {

    try {
        const [name, ...rest] = argv;
        if (name === undefined) {
            throw new UsageError('missing command', overallUsage);
        }

        const help = helpText(argv);
        if (help !== undefined) {
            process.stdout.write(`${help}\n`);
            return 0;
        }

        await chosenCommand(name).run(rest);
        return 0;
    }
    catch (error) {
        return reportError(error);
    }
}
