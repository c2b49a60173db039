/* What every table-shaped export (CSV, HTML, PDF) shows, derived from the resource declarations. */
import { recordColumns, type ResourceDeclaration } from '../../models/resources';

/** The columns of a resource's table, in the order the API serialises a record. */
export const columnsOf = recordColumns;

/** The columns of several resources in one table: `resource`, then every resource's columns once, in declaration order. */
export function unionColumnsOf(resources: readonly ResourceDeclaration[]): string[] {

    const fields = new Set(resources.flatMap((resource) => Object.keys(resource.fields)));
    return ['resource', 'id', ...fields, 'revision', 'created_at', 'updated_at'];
}

/** A value as a table cell shows it: empty for no value. */
export function cellText(value: unknown): string {

    return value === null || value === undefined ? '' : String(value);
}

/** `gallery` → `Gallery`: how a section is headed. */
export const sectionTitle = (resource: ResourceDeclaration): string => resource.name[0].toUpperCase() + resource.name.slice(1);

/** `2026-11-21 09:00 UTC`: the generated time as the documents print it. */
export const generatedText = (date: Date): string => `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
