import type { Command } from './command';
import { wantsJson } from './command';
import { conflictsCommand } from './commands/conflicts';
import { connectCommand } from './commands/connect';
import { conversationsCommand } from './commands/conversations';
import { disconnectCommand } from './commands/disconnect';
import { historyCommand } from './commands/history';
import { outboxCommand } from './commands/outbox';
import { peopleCommand } from './commands/people';
import { resolveCommand } from './commands/resolve';
import { saveCommand } from './commands/save';
import { sendCommand } from './commands/send';
import { startCommand } from './commands/start';
import { statusCommand } from './commands/status';
import { syncCommand } from './commands/sync';
import { watchCommand } from './commands/watch';
import { windowCommand } from './commands/window';
import { UsageError } from './errors';
import { overallHelp, version } from './help';
import { Output } from './output';
import { reportError } from './report-error';

/** The commands, by name. */
const commands: Readonly<Record<string, Command>> = {
    connect: connectCommand,
    status: statusCommand,
    conversations: conversationsCommand,
    people: peopleCommand,
    start: startCommand,
    history: historyCommand,
    send: sendCommand,
    save: saveCommand,
    sync: syncCommand,
    watch: watchCommand,
    outbox: outboxCommand,
    conflicts: conflictsCommand,
    resolve: resolveCommand,
    disconnect: disconnectCommand,
    window: windowCommand
};

const overallUsage = '<command> [options]; family-records-desktop --help lists them';

/** What a command line without a command asks for: its text, or undefined for the window. */
const topLevelFlags: Readonly<Record<string, () => string>> = {
    '--help': () => overallHelp(commands),
    '-h': () => overallHelp(commands),
    '--version': version,
    '-V': version
};

function chosenCommand(name: string): Command {

    if (!Object.hasOwn(commands, name)) {
        throw new UsageError(`unknown command "${name}"`, overallUsage);
    }

    return commands[name];
}

/** `help [command]`: the list of commands, or what one does. */
function helpOf(rest: string[]): string {

    return rest[0] === undefined ? overallHelp(commands) : chosenCommand(rest[0]).help;
}

/** Runs one command line (without `node` and the script); resolves with the exit code. */
export async function runCli(argv: string[]): Promise<number> {

    const output = new Output(wantsJson(argv));
    try {
        const [name, ...rest] = argv;
        if (name !== undefined && Object.hasOwn(topLevelFlags, name)) {
            output.text(topLevelFlags[name]());
            return 0;
        }

        if (name === 'help') {
            output.text(helpOf(rest));
            return 0;
        }

        // No command (or only options, such as --profile): the window.
        if (name === undefined || name.startsWith('-')) {
            return await windowCommand.run(argv, output);
        }

        return await chosenCommand(name).run(rest, output);
    }
    catch (error) {
        return reportError(error, output);
    }
}
