/** Runs `work` and tells how long it took, in milliseconds. */
export async function timed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {

    const start = process.hrtime.bigint();
    const result = await work();
    return { result, ms: Number(process.hrtime.bigint() - start) / 1e6 };
}
