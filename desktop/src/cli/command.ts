import { parseArgs, type ParseArgsConfig } from 'util';

import { UsageError } from './errors';
import { Output } from './output';

type OptionsConfig = NonNullable<ParseArgsConfig['options']>;

/** The options every command takes. */
export const commonOptions = {
    json: { type: 'boolean' },
    profile: { type: 'string' },
    help: { type: 'boolean', short: 'h' }
} as const;

type AllOptions<O extends OptionsConfig> = O & typeof commonOptions;
type ParsedValues<O extends OptionsConfig> = ReturnType<typeof parseArgs<{ args: string[]; options: AllOptions<O>; strict: true; allowPositionals: true }>>['values'];

export interface CommandRun<O extends OptionsConfig> {
    values: ParsedValues<O>;
    /** The required positionals, then the optional ones given. */
    positionals: string[];
    output: Output;
}

export interface CommandSpec<O extends OptionsConfig> {
    /** How it is called, after `family-records-desktop`: `history <conversation> [--limit N]`. */
    usage: string;
    /** One line for the list of commands. */
    summary: string;
    /** What it does, for `<command> --help`; may span lines. */
    description: string;
    options: O;
    /** Names of the positional arguments, every one required. */
    positionals?: readonly string[];
    /** The last positional takes one value or more (`<person>…`). */
    variadic?: boolean;
    /** Resolves with the exit code (0 when nothing is returned); throws for a failure. */
    run(args: CommandRun<O>): Promise<number | void>;
}

export interface Command {
    readonly usage: string;
    readonly summary: string;
    readonly help: string;
    /** Parses the arguments after the command's name and runs it; resolves with the exit code. */
    run(argv: string[], output: Output): Promise<number>;
}

/** Whether a command line asks for JSON, read before parsing so that a usage error is reported as JSON too. */
export function wantsJson(argv: readonly string[]): boolean {

    return argv.includes('--json');
}

/** A command whose arguments are parsed strictly (`util.parseArgs`): an unknown option or a missing argument is a usage error. */
export function command<const O extends OptionsConfig>(spec: CommandSpec<O>): Command {

    const help = [`Usage: family-records-desktop ${spec.usage}`, '', spec.description, '', 'Every command takes --json (one JSON document on stdout) and --profile NAME.'].join('\n');
    return {
        usage: spec.usage,
        summary: spec.summary,
        help,
        async run(argv, output) {

            let parsed;
            try {
                parsed = parseArgs({ args: argv, options: { ...spec.options, ...commonOptions }, strict: true, allowPositionals: true });
            }
            catch (error) {
                // parseArgs goes on, over several lines, to explain how to pass a value starting with `-`.
                throw new UsageError((error as Error).message.split(/\.\s/)[0], spec.usage);
            }

            if ((parsed.values as { help?: boolean }).help) {
                output.text(help);
                return 0;
            }

            const expected = spec.positionals ?? [];
            if (parsed.positionals.length < expected.length) {
                throw new UsageError(`missing ${expected[parsed.positionals.length]}`, spec.usage);
            }

            if (parsed.positionals.length > expected.length && !spec.variadic) {
                throw new UsageError(`unexpected argument "${parsed.positionals[expected.length]}"`, spec.usage);
            }

            const exitCode = await spec.run({ values: parsed.values as ParsedValues<O>, positionals: parsed.positionals, output });
            return exitCode ?? 0;
        }
    };
}

/** A whole number option (`--limit 20`), or a usage error naming it. */
export function positiveInteger(value: string | undefined, name: string, usage: string): number | undefined {

    if (value === undefined) {
        return undefined;
    }

    if (!/^[1-9]\d*$/.test(value)) {
        throw new UsageError(`--${name} must be a whole number above 0, not "${value}"`, usage);
    }

    return Number(value);
}
