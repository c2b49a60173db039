/* What every table-shaped export (CSV, HTML, PDF) shows, derived from the resource declarations. */
import { recordColumns, type ResourceDeclaration } from '../../models/resources';

/** The columns of a resource's table, in the order the API serialises a record. */
export const columnsOf = recordColumns;

/** Relative column widths by what a column holds: long text gets room, a revision number little. */
const widthByType: Record<string, number> = {
    text: 2.6, string: 1.3, enum: 1.4, date: 1, partial_date: 1, integer: 0.9, currency: 0.7, reference: 1.8
};
const widthBySystemColumn: Record<string, number> = { id: 1.8, revision: 0.9, created_at: 1.8, updated_at: 1.8 };

/** Each column's share of a table's width (HTML and PDF), from what it holds; the shares add up to 1. */
export function columnWidthsOf(resource: ResourceDeclaration): number[] {

    const weights = columnsOf(resource).map((column) => widthBySystemColumn[column] ?? widthByType[resource.fields[column].type]);
    const total = weights.reduce((sum, weight) => sum + weight, 0);
    return weights.map((weight) => weight / total);
}

/** Whether a resource's table has so many columns that it reads better on a landscape page (HTML and PDF). */
export const wantsLandscape = (resource: ResourceDeclaration): boolean => columnsOf(resource).length > 8;

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
