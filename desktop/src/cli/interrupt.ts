/** Runs `job` with a signal that Ctrl-C (SIGINT) or SIGTERM aborts, instead of ending the process at once. */
export async function untilInterrupted<T>(job: (signal: AbortSignal) => Promise<T>): Promise<T> {

    const abort = new AbortController();
    const stop = () => abort.abort();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    try {
        return await job(abort.signal);
    }
    finally {
        process.removeListener('SIGINT', stop);
        process.removeListener('SIGTERM', stop);
    }
}
