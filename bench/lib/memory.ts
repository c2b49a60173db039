/** Samples the process's RSS every few milliseconds until stopped; returns the peak growth over the first sample, in bytes. */
export function rssPeakSampler(intervalMs = 5): { stop(): number } {

    const before = process.memoryUsage.rss();
    let peak = before;
    const timer = setInterval(() => {

        peak = Math.max(peak, process.memoryUsage.rss());
    }, intervalMs);

    return {
        stop() {

            clearInterval(timer);
            peak = Math.max(peak, process.memoryUsage.rss());
            return peak - before;
        }
    };
}

/** Collects garbage first when node runs with --expose-gc, so a memory figure starts from what is live. */
export function collectGarbage(): void {

    (globalThis as { gc?: () => void }).gc?.();
}
