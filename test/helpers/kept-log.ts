import { consoleLog, type Log } from '../../lib/logger';

/**
 * A log that keeps its lines, as `[tags] message`, for a test to read, instead of printing them.
 * Given `expectedErrors`, the errors a test provokes on purpose (a test server's log), it also
 * prints the error lines none of them matches, as a test server's default log does, so that a
 * failure nobody provoked stays visible.
 */
export function keptLog(expectedErrors?: RegExp[]): { log: Log; lines: string[] } {

    const lines: string[] = [];
    const print = consoleLog(true);
    return {
        lines,
        log: (tags, message, fields) => {

            const line = `[${tags.join(',')}] ${message}`;
            lines.push(line);
            if (expectedErrors && !expectedErrors.some((expected) => expected.test(line))) {
                print(tags, message, fields);
            }
        }
    };
}
