const isoTimestamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * A moment as the API writes it (`Date.toISOString()`), e.g. in a cursor it hands out.
 * Date.parse() takes 30 February or year 0000, which PostgreSQL's timestamptz refuses with an
 * error: the text must be the moment's own ISO text, in years 1 to 9999.
 */
export function isApiTimestamp(value: unknown): value is string {

    if (typeof value !== 'string' || !isoTimestamp.test(value) || value.startsWith('0000')) {
        return false;
    }

    const moment = Date.parse(value);
    return !Number.isNaN(moment) && new Date(moment).toISOString() === value;
}
