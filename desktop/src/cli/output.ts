/**
 * What a command prints: on stdout its result, with `--json` exactly one JSON document (or, for `watch`, one
 * object per line), otherwise lines for a person. Notes, progress and errors go to stderr, never to stdout.
 */
export class Output {
    constructor(readonly json: boolean) { }

    /** The command's result. */
    result(json: unknown, humanLines: () => string[]): void {

        process.stdout.write(this.json ? `${JSON.stringify(json, null, 2)}\n` : humanLines().map((line) => `${line}\n`).join(''));
    }

    /** One record of a live feed: a JSON object per line with `--json`. */
    line(json: unknown, human: () => string): void {

        process.stdout.write(this.json ? `${JSON.stringify(json)}\n` : `${human()}\n`);
    }

    /** Text for a person on stdout (help). */
    text(text: string): void {

        process.stdout.write(`${text}\n`);
    }

    /** A remark beside the result (offline, a warning): stderr, so that stdout stays the result. */
    note(text: string): void {

        process.stderr.write(`${text}\n`);
    }

    /** A failure: `error: …` for a person, `{"error":{"code","message"}}` with `--json`; both on stderr. */
    error(code: string, message: string): void {

        process.stderr.write(this.json ? `${JSON.stringify({ error: { code, message } })}\n` : `error: ${message}\n`);
    }
}
