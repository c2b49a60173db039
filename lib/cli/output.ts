/** The `--json` flag every command that reports a result accepts. */
export const jsonOption = { json: { type: 'boolean' } } as const;

/**
 * What a command prints on stdout: with `--json` exactly one JSON object (snake_case keys),
 * otherwise lines for a person. Errors and log lines go to stderr, never here.
 */
export function printResult(asJson: boolean | undefined, json: object, humanLines: () => string[]): void {

    process.stdout.write(asJson ? `${JSON.stringify(json, null, 2)}\n` : `${humanLines().join('\n')}\n`);
}

/** `a, b` or `none`, for human output. */
export function listed(items: readonly string[]): string {

    return items.length > 0 ? items.join(', ') : 'none';
}
