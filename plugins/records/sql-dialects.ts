/*
 * What the list reader's SQL (list-sql.ts) writes differently on SQLite and PostgreSQL. Every
 * value is a bound parameter (`$1`, `$2`…, the same placeholders on both); identifiers come
 * from the resource declarations only.
 */

export interface SqlDialect {
    /** A condition: the column contains the text bound at `parameter`, exactly (no wildcards, no folding of case). */
    containsText(column: string, parameter: string): string;
    /** A timestamp column's value in jsonRows() as the API's ISO 8601 text (UTC, milliseconds). */
    isoTimestamp(value: string): string;
    /** A cursor's timestamp where the SQL compares it with a timestamp column. */
    timestampParameter(parameter: string): string;
    /** The value to bind for timestampParameter(), from the API's ISO text. */
    timestampValue(iso: string): string;
    /**
     * An aggregate: JSON text of an array holding one array of `values` per row, in `order`. The values are JSON's
     * own types on SQLite, and texts (or null) on PostgreSQL, which the reader makes numbers where the column is one.
     */
    jsonRows(values: readonly string[], order: string): string;
    /**
     * For records of `columns` (in order): a query over the subquery `page`, its rows as JSON objects, one a
     * line (`,\n` between two), in `order` (its columns named `"page"."…"`), as `rows`; their number as `count`.
     * The per-record part is written once, here.
     */
    recordLines(columns: readonly LineColumn[]): (page: string, order: string) => string;
}

/** A key of recordLines()' JSON objects: its name, its SQL value over the `"page"` row, and how the value is written. */
export interface LineColumn {
    name: string;
    value: string;
    /** A timestamp goes out as ISO text; a boolean (an SQL condition) as `true` or `false`; anything else as it is. */
    kind?: 'timestamp' | 'boolean';
}

export const quoted = (identifier: string): string => `"${identifier}"`;

/** A name as an SQL string literal; names come from the resource declarations only. */
const literal = (name: string): string => `'${name.replace(/'/g, "''")}'`;

/** Between two records of recordLines(): no raw line break can occur inside compact JSON, so this is where one ends. */
export const recordSeparator = ',\n';

const sqlite: SqlDialect = {
    containsText: (column, parameter) => `instr(${column}, ${parameter}) > 0`,
    // Sequelize stores SQLite timestamps as text, `2026-11-21 09:00:00.123 +00:00`: rearranged here, which costs a
    // fraction of strftime() in the query; any other shape goes through Date.
    isoTimestamp: (value) => (value.length === 30 && value.endsWith(' +00:00') ? `${value.slice(0, 10)}T${value.slice(11, 23)}Z` : new Date(value).toISOString()),
    timestampParameter: (parameter) => parameter,
    // Compared as text, so the cursor takes the stored shape (Sequelize's, in UTC as every write here is).
    timestampValue: (iso) => `${iso.slice(0, 10)} ${iso.slice(11, 23)} +00:00`,
    // Joined as text: the sorter of an ordered aggregate drops the JSON subtype, so json_group_array() would quote each array.
    jsonRows: (values, order) => `'[' || coalesce(group_concat(json_array(${values.join(', ')}), ',' ORDER BY ${order}), '') || ']'`,
    recordLines: (columns) => {

        // Sequelize's own shape rearranged by substr(), a fraction of strftime()'s cost; strftime() for any other.
        const iso = (value: string) => `CASE WHEN length(${value}) = 30 AND substr(${value}, 24) = ' +00:00' THEN substr(${value}, 1, 10) || 'T' || substr(${value}, 12, 12) || 'Z' ELSE strftime('%Y-%m-%dT%H:%M:%fZ', ${value}) END`;
        // SQLite has no boolean: a condition is 1 or 0, which json() of a JSON text makes true or false.
        const written = { timestamp: iso, boolean: (value: string) => `json(CASE WHEN ${value} THEN 'true' ELSE 'false' END)` };
        const record = `json_object(${columns.map(({ name, value, kind }) => `${literal(name)}, ${kind ? written[kind](value) : value}`).join(', ')})`;
        return (page, order) => `SELECT coalesce(group_concat(${record}, ',' || char(10) ORDER BY ${order}), '') AS "rows", count(*) AS "count" FROM (${page}) AS "page"`;
    }
};

const postgresUtcTimestamp = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(?:\.(\d+))?\+00$/;

const postgres: SqlDialect = {
    containsText: (column, parameter) => `strpos(${column}, ${parameter}) > 0`,
    // A timestamptz as text, in the ISO date style (lib/database.ts sets it on every connection) and the UTC zone
    // (Sequelize sets it): `2026-11-21 09:00:00.12+00`, the fraction trimmed of zeros or absent. Padded or cut to
    // milliseconds here (cut, as a JavaScript Date keeps them), which costs a fraction of to_char() in the query;
    // another zone goes through Date.
    isoTimestamp: (value) => {

        if (value.length === 26 && value[19] === '.' && value.endsWith('+00')) {
            return `${value.slice(0, 10)}T${value.slice(11, 23)}Z`;     // milliseconds, as the service writes them: no pattern to run
        }

        const utc = postgresUtcTimestamp.exec(value);
        // Date reads ISO 8601's extended form exactly (a year 0099 included), whose offsets have minutes: `+05` as `+05:00`.
        return utc ? `${utc[1]}T${utc[2]}.${(utc[3] ?? '').padEnd(3, '0').slice(0, 3)}Z` : new Date(value.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00')).toISOString();
    },
    timestampParameter: (parameter) => `${parameter}::timestamptz`,
    timestampValue: (iso) => iso,
    // Every value as text, an array of texts a row: json_build_array() looks up each argument's type for every row, and
    // took about a quarter longer to write a page of 2,000 persons. The aggregate cast to text: the reader parses the JSON
    // itself, alike on both databases. No rows: NULL, not [].
    jsonRows: (values, order) => `coalesce(json_agg(ARRAY[${values.map((value) => `${value}::text`).join(', ')}] ORDER BY ${order}), '[]')::text`,
    // row_to_json() writes compact JSON (json_build_object() puts spaces around every colon) with the column names as keys.
    recordLines: (columns) => {

        const values = columns.map(({ name, value, kind }) => (kind === 'timestamp' ? `to_char(${value} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS ${quoted(name)}` : `${value} AS ${quoted(name)}`)).join(', ');
        return (page, order) => `SELECT coalesce(string_agg(row_to_json("record")::text, E',\\n' ORDER BY ${order}), '') AS "rows", count(*)::integer AS "count" FROM (${page}) AS "page" CROSS JOIN LATERAL (SELECT ${values}) AS "record"`;
    }
};

export const sqlDialects: Readonly<Record<string, SqlDialect>> = { sqlite, postgres };
