/**
 * Runs `work` with what is written to stderr kept in a list, write by write, instead of reaching the
 * terminal (log lines to check, and a test's output kept clean); stderr is restored however `work` ends.
 */
export async function capturingStderr<T>(work: () => T | Promise<T>): Promise<{ result: T; written: string[] }> {

    const written: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((text: string | Uint8Array) => written.push(String(text)) > 0) as typeof process.stderr.write;
    try {
        return { result: await work(), written };
    }
    finally {
        process.stderr.write = write;
    }
}
