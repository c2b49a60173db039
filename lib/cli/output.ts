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

/**
 * A reader that has gone (`family-records … | head -0`) makes writing stdout fail with EPIPE, which Node
 * throws as an unhandled error, stack trace and all. Says so in one line and exits 1 instead: what the
 * command did is done, but what it printed (a key shown only once, say) is lost.
 */
export function reportClosedStdout(): void {

    process.stdout.on('error', (error: NodeJS.ErrnoException) => {

        if (error.code !== 'EPIPE') {
            throw error;
        }

        process.stderr.write('error: stdout was closed before the output was written: the command did its work, but what it printed is lost\n');
        process.exitCode = 1;
    });
}
