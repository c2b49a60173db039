import type { Log } from '../../lib/logger';

/** A log that keeps its lines, as `[tags] message`, for a test to read. */
export function keptLog(): { log: Log; lines: string[] } {

    const lines: string[] = [];
    return { lines, log: (tags, message) => lines.push(`[${tags.join(',')}] ${message}`) };
}
