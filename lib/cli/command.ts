import { parseArgs, type ParseArgsConfig } from 'util';

import { UsageError } from './errors';

type OptionsConfig = NonNullable<ParseArgsConfig['options']>;
type ParsedValues<O extends OptionsConfig> = ReturnType<typeof parseArgs<{ args: string[]; options: O; strict: true; allowPositionals: true }>>['values'];
/** The parsed options, with the required ones known to be there. */
type Values<O extends OptionsConfig, R extends keyof O> = Omit<ParsedValues<O>, R> & { readonly [K in R]: string };

export interface Command {
    /** One line per way of calling it, after `family-records`. */
    readonly usage: readonly string[];
    /** What `family-records <command> --help` prints. */
    readonly help: string;
    run(argv: string[]): Promise<void>;
}

export interface CommandSpec<O extends OptionsConfig, R extends keyof O & string> {
    /** How it is called, after `family-records`: `key revoke ID [--json]`. */
    usage: string;
    /** What it does, for `--help`; may span lines. */
    description: string;
    options: O;
    /** String options that must be given. */
    required?: readonly R[];
    /** Names of the positional arguments, every one required. */
    positionals?: readonly string[];
    run(args: { values: Values<O, R>; positionals: string[] }): Promise<void>;
}

const indent = (text: string) => text.split('\n').map((line) => `    ${line}`).join('\n');

/** A command whose arguments are parsed strictly (`util.parseArgs`): an unknown or missing flag is a usage error. */
export function command<const O extends OptionsConfig, const R extends keyof O & string = never>(spec: CommandSpec<O, R>): Command {

    return {
        usage: [spec.usage],
        help: `  ${spec.usage}\n${indent(spec.description)}`,
        async run(argv) {

            let parsed;
            try {
                parsed = parseArgs({ args: argv, options: spec.options as OptionsConfig, strict: true, allowPositionals: true, tokens: true });
            }
            catch (error) {
                // parseArgs goes on, over several lines, to explain how to pass a value starting with `-`: more than an operator needs.
                throw new UsageError((error as Error).message.split(/\.\s/)[0], spec.usage);
            }

            // parseArgs keeps the last of a repeated option: `--family A … --family B` would quietly act on B. (A flag
            // given twice, `--json --json`, means what it means once.)
            const repeated = repeatedOption(parsed.tokens);
            if (repeated) {
                throw new UsageError(`--${repeated} is given more than once`, spec.usage);
            }

            const expected = spec.positionals ?? [];
            if (parsed.positionals.length < expected.length) {
                throw new UsageError(`missing ${expected[parsed.positionals.length]}`, spec.usage);
            }

            if (parsed.positionals.length > expected.length) {
                throw new UsageError(`unexpected argument "${parsed.positionals[expected.length]}"`, spec.usage);
            }

            const missing = (spec.required ?? []).find((name) => parsed.values[name] === undefined);
            if (missing) {
                throw new UsageError(`missing --${missing}`, spec.usage);
            }

            await spec.run({ values: parsed.values as Values<O, R>, positionals: parsed.positionals });
        }
    };
}

/** The first option with a value given twice on a command line, if any. */
function repeatedOption(tokens: readonly { kind: string; name?: string; value?: string }[]): string | undefined {

    const seen = new Set<string>();
    for (const token of tokens) {
        if (token.kind === 'option' && token.value !== undefined) {
            if (seen.has(token.name!)) {
                return token.name;
            }

            seen.add(token.name!);
        }
    }

    return undefined;
}

/** Commands under one name (`key create`, `key revoke`), chosen by the first argument. */
export function commandGroup(name: string, commands: Readonly<Record<string, Command>>, notes?: string): Command {

    const names = Object.keys(commands).join('|');
    return {
        usage: Object.values(commands).flatMap((entry) => entry.usage),
        help: [`Usage: family-records ${name} ${names} …`, '', ...Object.values(commands).map((entry) => entry.help), ...(notes ? ['', notes] : [])].join('\n'),
        async run([subcommand, ...argv]) {

            const chosen = subcommand !== undefined && Object.hasOwn(commands, subcommand) ? commands[subcommand] : undefined;
            if (!chosen) {
                throw new UsageError(subcommand === undefined ? `${name} needs a command` : `unknown command "${name} ${subcommand}"`, `${name} ${names} …; family-records ${name} --help shows them`);
            }

            return chosen.run(argv);
        }
    };
}

/** `a,b, c,a` → ['a', 'b', 'c']: a name given twice means what it means once, in every command's lists. */
export function commaList(value: string): string[] {

    return [...new Set(value.split(',').map((item) => item.trim()).filter(Boolean))];
}
