/** Runs `work` and tells how long it took, in milliseconds. */
export async function timed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {

    const start = process.hrtime.bigint();
    const result = await work();
    return { result, ms: Number(process.hrtime.bigint() - start) / 1e6 };
}

const hourMs = 3_600_000;

/**
 * Waits, when the next hour of the clock begins within `marginMs`, until it has begun: for a test whose
 * counts are kept by the hour (usage counts, hour-long rate windows) and must all fall in one.
 */
export async function clearOfHourBoundary(marginMs = 10_000): Promise<void> {

    const untilNextHour = hourMs - (Date.now() % hourMs);
    if (untilNextHour < marginMs) {
        await new Promise((resolve) => setTimeout(resolve, untilNextHour + 50));
    }
}
