import type { Request } from '@hapi/hapi';

/**
 * Log lines go to stderr (stdout stays clean for `--json` output), one per event, in one of two formats
 * (LOG_FORMAT): `text`, `time [tags] message`, for a terminal or the journal; `json`, one JSON object a
 * line, for log shippers, where a stack trace stays inside its line instead of breaking into many.
 */
export type LogFormat = 'text' | 'json';

/** What a log line says about the request it concerns, as separate fields of a JSON line (the text line's message names them). */
export interface LogFields {
    request_id?: string;
    method?: string;
    path?: string;
}

export type Log = (tags: string[], message: string, fields?: LogFields) => void;

/** The fields of a line about `request`. */
export const requestLogFields = (request: Request): Required<LogFields> => ({ request_id: request.requestId, method: request.method.toUpperCase(), path: request.path });

/** The level a JSON line gives, from the tags every line carries: `error`, `warn`, else `info`. */
const levelOf = (tags: string[]) => (tags.includes('error') ? 'error' : tags.includes('warn') ? 'warn' : 'info');

const formats: Record<LogFormat, (time: string, tags: string[], message: string, fields?: LogFields) => string> = {
    text: (time, tags, message) => `${time} [${tags.join(',')}] ${message}`,
    json: (time, tags, message, fields) => JSON.stringify({ time, level: levelOf(tags), tags, message, ...fields })
};

/** A log to stderr; `quiet` keeps only errors (the CLI, the tests). */
export function consoleLog(quiet = false, format: LogFormat = 'text'): Log {

    const line = formats[format];
    return (tags, message, fields) => {

        if (quiet && !tags.includes('error')) {
            return;
        }

        process.stderr.write(`${line(new Date().toISOString(), tags, message, fields)}\n`);
    };
}
