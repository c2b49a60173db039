import type { Redaction } from '../../lib/privacy/redaction';
import { recordColumns, storedFileColumns, systemFields, type ResourceDeclaration } from '../../models/resources';
import { foldForSearch, searchTextColumn } from '../../models/search-text';
import { timestampFields, type Cursor } from './cursor';
import { columnOf, redactedColumn, redactionSql, storedColumns, type ColumnsSql } from './redacted-sql';
import { quoted, sqlDialects, type LineColumn, type SqlDialect } from './sql-dialects';

export interface ListOptions {
    familyLongId: string;
    search?: string;
    sort: string;
    direction: 'asc' | 'desc';
    filters: Record<string, unknown>;
    after?: Cursor;
    /** A key that sees living persons redacted: what its records hide, applied by the page query itself. */
    redaction?: Redaction;
}

/** SQL text and the values bound to its `$n` placeholders. */
export interface Statement {
    sql: string;
    bind: unknown[];
}

/** The columns a list reads: the API's, in its order, then the stored-file columns that extensions read. */
export const listColumns = (resource: ResourceDeclaration): string[] => [...recordColumns(resource), ...resource.storesFile ? Object.keys(storedFileColumns) : []];

/** A column of the resource, quoted. Sort and filter names are validated before they get here: this is the last guard. */
function column(resource: ResourceDeclaration, name: string): string {

    if (!(name in resource.fields) && !(name in systemFields)) {
        throw new Error(`${name} is not a column of ${resource.name}`);
    }

    return quoted(name);
}

/**
 * Every word must appear in at least one searchable field, ignoring case and accents: each word,
 * folded, in the record's folded search text (models/search-text.ts), where a line feed separates
 * two fields and no word holds one. A word that folds to nothing (combining marks alone) asks nothing.
 */
function searchConditions(search: string, dialect: SqlDialect, parameter: (value: unknown) => string): string[] {

    const words = search.split(/\s+/).map(foldForSearch).filter(Boolean);
    return words.map((word) => dialect.containsText(quoted(searchTextColumn), parameter(word)));
}

/**
 * `field = value`. Unicode writes many texts two ways, `Zoë` as one character or as `e` and a combining
 * diaeresis (macOS file names, some keyboards), and what a client sends may not be the form that was
 * stored: a text matches in its own form, composed (NFC) or decomposed (NFD), each an exact match an
 * index answers.
 */
function equalsCondition(field: string, value: unknown, parameter: (value: unknown) => string): string {

    const forms = typeof value === 'string' ? new Set([value, value.normalize('NFC'), value.normalize('NFD')]) : new Set([value]);
    return forms.size === 1 ? `${field} = ${parameter(value)}` : `${field} IN (${[...forms].map(parameter).join(', ')})`;
}

/*
 * Keyset paging: rows strictly after the cursor in (sort field, id) order, with empty values last
 * in both directions, the same on SQLite and PostgreSQL. Non-empty values: one row-value comparison,
 * `(field, id) > (value, id)`, which both databases answer by seeking an index on (family, field, id),
 * where the equivalent ORs made them walk every earlier row of the family.
 */
function afterCursor(sortKey: string, cursor: Cursor, dialect: SqlDialect, parameter: (value: unknown) => string): string {

    const beyond = cursor.direction === 'asc' ? '>' : '<';
    if (cursor.value === null) {
        return `${sortKey} IS NULL AND "id" ${beyond} ${parameter(cursor.id)}`;
    }

    if (timestampFields.has(cursor.sort)) {
        // The timestamps are never empty: no IS NULL branch, so the comparison alone can seek the index.
        const value = dialect.timestampParameter(parameter(dialect.timestampValue(String(cursor.value))));
        return `(${sortKey}, "id") ${beyond} (${value}, ${parameter(cursor.id)})`;
    }

    return `((${sortKey}, "id") ${beyond} (${parameter(cursor.value)}, ${parameter(cursor.id)}) OR ${sortKey} IS NULL)`;
}

/** A page query: the page's rows as a subquery, its order, the values bound, and its columns as the key sees them. */
interface PageQuery {
    page: string;
    /** The order of the page's rows, their columns named bare or of `relation`. */
    orderBy: (relation?: string) => string;
    bind: unknown[];
    columns: ColumnsSql;
    /** A redacted key's page: its rows also say whether each is redacted (`redactedColumn`). */
    redacted: boolean;
}

/**
 * The rows of one keyset page, in order, as a subquery; `order` names its columns bare. For a redacted key,
 * whether each row concerns a living person is computed once, in the page; the query over it shows the row.
 */
function pageQuery(resource: ResourceDeclaration, options: ListOptions, dialectName: string, limit: number): PageQuery {

    const dialect = sqlDialects[dialectName];
    const bind: unknown[] = [];
    const parameter = (value: unknown) => {

        bind.push(value);
        return `$${bind.length}`;
    };

    const conditions = [`"family_long_id" = ${parameter(options.familyLongId)}`];
    const columns = options.redaction ? redactionSql(resource, options.redaction, dialectName, parameter) : storedColumns;
    const filters = Object.entries(options.filters).map(([name, value]) => equalsCondition(column(resource, name), value, parameter));
    const search = options.search ? searchConditions(options.search, dialect, parameter) : [];
    conditions.push(...filters, ...search);
    // Every searchable field is hidden: a search, or a filter on a hidden field, never matches a redacted record.
    if (columns.living && (search.length > 0 || Object.keys(options.filters).some(columns.hides))) {
        conditions.push(`NOT (${columns.living})`);
    }

    column(resource, options.sort);         // the last guard of the sort's name, whatever the key sees of its values
    const sortKey = columns.tableSortKey(options.sort);
    if (options.after) {
        conditions.push(afterCursor(sortKey, options.after, dialect, parameter));
    }

    const direction = options.direction === 'desc' ? 'DESC' : 'ASC';
    const ordered = (key: string, id: string) => `${key} ${direction} NULLS LAST, ${id} ${direction}`;
    const orderBy = (relation?: string) => ordered(columns.pageSortKey(options.sort, relation), columnOf('id', relation));

    // The columns a list shows, not `*`: the search text is as long as every searchable field together.
    const selected = [...listColumns(resource).map(quoted), ...options.redaction ? [`${columns.living ?? 'FALSE'} AS ${quoted(redactedColumn)}`] : []];
    const page = `SELECT ${selected.join(', ')} FROM ${quoted(resource.table)} WHERE ${conditions.join(' AND ')} ORDER BY ${ordered(sortKey, '"id"')} LIMIT ${parameter(limit)}`;
    return { page, orderBy, bind, columns, redacted: options.redaction !== undefined };
}

/**
 * One keyset page of a list as a single row holding the page's records as JSON text (`rows`):
 * an array per record, its values in listColumns() order. Always scoped to the family; every
 * value bound, never written into the SQL. One JSON text costs the database drivers a fraction
 * of what a row object per record does.
 */
export function listStatement(resource: ResourceDeclaration, options: ListOptions, dialectName: string, limit: number): Statement {

    const { page, orderBy, bind, columns, redacted } = pageQuery(resource, options, dialectName, limit);
    const values = [...listColumns(resource).map((name) => columns.shown(name)), ...redacted ? [quoted(redactedColumn)] : []];
    return { sql: `SELECT ${sqlDialects[dialectName].jsonRows(values, orderBy())} AS "rows" FROM (${page}) AS "page"`, bind };
}

/**
 * The same page as the API's JSON shows it: each record a JSON object of recordColumns(), its
 * timestamps ISO, one a line (sql-dialects.ts, recordLines()), so that a page of a resource no
 * extension adds to goes out as the database wrote it. A redacted key's records end with `redacted`.
 */
export function recordLinesStatement(resource: ResourceDeclaration, options: ListOptions, dialectName: string, limit: number): Statement {

    const { page, orderBy, bind, columns, redacted } = pageQuery(resource, options, dialectName, limit);
    if (!redacted) {
        return { sql: recordLinesQuery(resource, dialectName)(page, orderBy('page')), bind };
    }

    // Its replaced values are bound per statement, so written per statement: a few microseconds.
    const lines: LineColumn[] = [
        ...recordColumns(resource).map((name) => lineColumn(name, columns.shown(name, 'page'))),
        { name: redactedColumn, value: columnOf(redactedColumn, 'page'), kind: 'boolean' }
    ];
    return { sql: sqlDialects[dialectName].recordLines(lines)(page, orderBy('page')), bind };
}

/** A record's key in recordLines(), its timestamps as ISO text. */
const lineColumn = (name: string, value: string): LineColumn => ({ name, value, ...timestampFields.has(name) ? { kind: 'timestamp' } : {} });

// The record part of the query depends on the resource alone: written once per resource and database, not per request.
const recordLinesQueries = new Map<string, (page: string, order: string) => string>();

function recordLinesQuery(resource: ResourceDeclaration, dialectName: string): (page: string, order: string) => string {

    const id = `${dialectName}:${resource.name}`;
    let query = recordLinesQueries.get(id);
    if (!query) {
        query = sqlDialects[dialectName].recordLines(recordColumns(resource).map((name) => lineColumn(name, columnOf(name, 'page'))));
        recordLinesQueries.set(id, query);
    }

    return query;
}
