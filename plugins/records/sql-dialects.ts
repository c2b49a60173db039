/*
 * What the list reader's SQL (list-sql.ts) writes differently on SQLite and PostgreSQL. Every
 * value is a bound parameter (`$1`, `$2`…, the same placeholders on both); identifiers come
 * from the resource declarations only.
 */

export interface SqlDialect {
    /** A condition: the column contains the text bound at `parameter`, ignoring case, with no wildcards. */
    containsText(column: string, parameter: string): string;
    /** The value to bind for containsText(). */
    containsTextValue(text: string): string;
    /** A timestamp column's value in a list's JSON as the API's ISO 8601 text (UTC, milliseconds). */
    isoTimestamp(value: string): string;
    /** The same in SQL, for JSON the API sends as the database wrote it. */
    isoTimestampSql(column: string): string;
    /** A cursor's timestamp where the SQL compares it with a timestamp column. */
    timestampParameter(parameter: string): string;
    /** The value to bind for timestampParameter(), from the API's ISO text. */
    timestampValue(iso: string): string;
    /** A row's JSON array of `values`. */
    jsonArray(values: readonly string[]): string;
    /** A row's compact JSON object of `[name, SQL expression]` entries, in their order. */
    jsonObject(entries: readonly (readonly [string, string])[]): string;
    /** An aggregate: the text of a JSON array of the rows' JSON `items` (rows where `filter` holds, if given), in `order`. */
    jsonArrayOfRows(items: string, order: string, filter?: string): string;
}

export const quoted = (identifier: string): string => `"${identifier}"`;

const where = (filter?: string) => (filter ? ` FILTER (WHERE ${filter})` : '');

const sqlite: SqlDialect = {
    // instr() has no wildcards; lower() folds case as SQLite's LIKE does (ASCII only).
    containsText: (column, parameter) => `instr(lower(${column}), lower(${parameter})) > 0`,
    containsTextValue: (text) => text,
    // Sequelize stores SQLite timestamps as text, `2026-11-21 09:00:00.123 +00:00`: rearranged here, which costs a
    // fraction of strftime() in the query; any other shape goes through Date.
    isoTimestamp: (value) => (value.length === 30 && value.endsWith(' +00:00') ? `${value.slice(0, 10)}T${value.slice(11, 23)}Z` : new Date(value).toISOString()),
    isoTimestampSql: (column) => `CASE WHEN length(${column}) = 30 AND substr(${column}, 24) = ' +00:00' THEN substr(${column}, 1, 10) || 'T' || substr(${column}, 12, 12) || 'Z' ELSE strftime('%Y-%m-%dT%H:%M:%fZ', ${column}) END`,
    timestampParameter: (parameter) => parameter,
    // Compared as text, so the cursor takes the stored shape (Sequelize's, in UTC as every write here is).
    timestampValue: (iso) => `${iso.slice(0, 10)} ${iso.slice(11, 23)} +00:00`,
    jsonArray: (values) => `json_array(${values.join(', ')})`,
    jsonObject: (entries) => `json_object(${entries.map(([name, value]) => `'${name}', ${value}`).join(', ')})`,
    // Joined as text: the sorter of an ordered aggregate drops the JSON subtype, so json_group_array() would quote each item.
    jsonArrayOfRows: (items, order, filter) => `'[' || coalesce(group_concat(${items}, ',' ORDER BY ${order})${where(filter)}, '') || ']'`
};

const postgresUtcTimestamp = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?\+00:00$/;

const postgres: SqlDialect = {
    // ILIKE's escape character is the backslash unless the SQL names another.
    containsText: (column, parameter) => `${column} ILIKE ${parameter}`,
    containsTextValue: (text) => `%${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`,
    // JSON shows a timestamptz in the session's zone, which Sequelize sets to UTC: `2026-11-21T09:00:00.12+00:00`, the
    // fraction trimmed of zeros or absent. Padded or cut to milliseconds here (cut, as a JavaScript Date keeps them),
    // which costs a fraction of to_char() in the query; any other shape goes through Date.
    isoTimestamp: (value) => {

        const utc = postgresUtcTimestamp.exec(value);
        return utc ? `${utc[1]}.${(utc[2] ?? '').padEnd(3, '0').slice(0, 3)}Z` : new Date(value).toISOString();
    },
    isoTimestampSql: (column) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
    timestampParameter: (parameter) => `${parameter}::timestamptz`,
    timestampValue: (iso) => iso,
    // As text: JSON has no max(), and the caller parses it anyway.
    jsonArray: (values) => `json_build_array(${values.join(', ')})::text`,
    // json_build_object() writes `"name" : value, …`; the JSON of a row has no spaces.
    jsonObject: (entries) => `row_to_json((SELECT "shown" FROM (SELECT ${entries.map(([name, value]) => `${value} AS ${quoted(name)}`).join(', ')}) AS "shown"))`,
    jsonArrayOfRows: (items, order, filter) => `'[' || coalesce(string_agg((${items})::text, ',' ORDER BY ${order})${where(filter)}, '') || ']'`
};

export const sqlDialects: Readonly<Record<string, SqlDialect>> = { sqlite, postgres };
