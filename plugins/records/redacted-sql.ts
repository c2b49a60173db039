import { livingPersonRowSql, livingPersonSql } from '../../lib/privacy/living-persons';
import { personIdColumn, redactedFields, redactedValue, type Redaction } from '../../lib/privacy/redaction';
import { storedFileColumns, type ResourceDeclaration } from '../../models/resources';
import { quoted } from './sql-dialects';

/** The page's column, and the key of a redacted key's records, saying whether the record is shown redacted. */
export const redactedColumn = 'redacted';

/**
 * The columns of a list statement (list-sql.ts) as its key sees them. A full key sees the stored
 * values. For a redacted key, the page subquery selects the stored values and, once per row,
 * whether the record concerns a living person (`redacted`); the query over the page shows a
 * redacted record's hidden columns replaced. Search, filters and sorts never see a hidden value
 * of a redacted record.
 */
export interface ColumnsSql {
    /** A condition on a row of the resource's table: it concerns a person presumed living. Absent for a resource never redacted. */
    living?: string;
    /** Whether the field is shown otherwise in a redacted record: no search, filter or sort may see its value. */
    hides(name: string): boolean;
    /** The sort key of a row of the table: a hidden field is empty (null) in a redacted record. */
    tableSortKey(name: string): string;
    /** The same sort key of a page row (of `relation` when given). */
    pageSortKey(name: string, relation?: string): string;
    /** Column `name` of a page row (of `relation` when given) as the key sees it. */
    shown(name: string, relation?: string): string;
}

/** The columns a redacted record shows replaced: its redacted fields, and its file's (a redacted gallery item or document has no file to link to). */
export const replacedColumns = (resource: ResourceDeclaration): string[] => [...redactedFields(resource), ...resource.storesFile ? Object.keys(storedFileColumns) : []];

/** Column `name`, of `relation` when given. */
export const columnOf = (name: string, relation?: string): string => `${relation ? `${quoted(relation)}.` : ''}${quoted(name)}`;

/** What a full key's list statement shows: the stored values. */
export const storedColumns: ColumnsSql = { hides: () => false, tableSortKey: (name) => quoted(name), pageSortKey: columnOf, shown: columnOf };

/** `cutoff` and the replaced values are bound through `parameter`; every statement built with it shows every declared field. */
export function redactionSql(resource: ResourceDeclaration, redaction: Redaction, dialectName: string, parameter: (value: unknown) => string): ColumnsSql {

    const personColumn = personIdColumn(resource);
    const table = quoted(resource.table);
    const dialect = dialectName === 'postgres' ? 'postgres' : 'sqlite';
    // A person's row is the person: not looked up again.
    const living = personColumn && (personColumn === 'id' ? `(${livingPersonRowSql(dialect, table, parameter(redaction.cutoff))})` :
        livingPersonSql(dialect, `${table}.${quoted(personColumn)}`, `${table}."family_long_id"`, parameter(redaction.cutoff)));
    const replaced = new Map(replacedColumns(resource).map((name) => {

        const value = redactedValue(resource, name, redaction);
        return [name, value === null ? 'NULL' : parameter(value)];
    }));

    return {
        living,
        hides: (name) => replaced.has(name),
        tableSortKey: (name) => (replaced.has(name) && living ? `CASE WHEN ${living} THEN NULL ELSE ${quoted(name)} END` : quoted(name)),
        pageSortKey: (name, relation) => (replaced.has(name) ? `CASE WHEN ${columnOf(redactedColumn, relation)} THEN NULL ELSE ${columnOf(name, relation)} END` : columnOf(name, relation)),
        shown: (name, relation) => (replaced.has(name) ? `CASE WHEN ${columnOf(redactedColumn, relation)} THEN ${replaced.get(name)} ELSE ${columnOf(name, relation)} END` : columnOf(name, relation))
    };
}
