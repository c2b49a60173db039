/**
 * The one declaration of every resource's fields. Validation (joi), filters,
 * sort keys, CSV columns, HTML/PDF tables and the OpenAPI document are all
 * derived from these declarations: add a field here and it appears everywhere.
 */

export type FieldType =
    | 'string'          // short text, `max` characters (code points)
    | 'text'            // long text
    | 'enum'            // one of `values`
    | 'date'            // full ISO date, YYYY-MM-DD
    | 'partial_date'    // genealogy dates are often partial: YYYY, YYYY-MM or YYYY-MM-DD
    | 'integer'         // exact whole number (money is kept in minor units)
    | 'currency'        // ISO 4217 code of a currency in current use
    | 'reference';      // the id of another record of the same family

export interface FieldDeclaration {
    readonly type: FieldType;
    readonly description: string;
    readonly max?: number;
    readonly values?: readonly string[];
    readonly references?: ResourceName;
    readonly default?: string | number;
    /** Must be given on create. */
    readonly required?: boolean;
    /** Accepted in create and update bodies (default true). Read-only fields are set by the server. */
    readonly writable?: boolean;
    /** Matched by free-text `search=`. */
    readonly searchable?: boolean;
    /** Accepted as `sort=`. */
    readonly sortable?: boolean;
    /** Accepted as `filter[field]=`. */
    readonly filterable?: boolean;
}

/** The most characters (code points) a `string` or `text` field takes. */
export const maxCharactersOf = (field: FieldDeclaration): number => field.max ?? (field.type === 'text' ? 10000 : 255);

export const resourceNames = ['trees', 'persons', 'gallery', 'events', 'projects', 'finances', 'documents', 'history'] as const;
export type ResourceName = typeof resourceNames[number];

/** What the routes serving every resource at once declare as their resource (`/api/v1/all`, the change stream). */
export const aggregateResourceName = 'all';

export interface ResourceDeclaration {
    readonly name: ResourceName;
    /** One record in words, for messages and documentation. */
    readonly singular: string;
    readonly description: string;
    /** Type prefix of the record ids (`per_…`). */
    readonly idPrefix: string;
    readonly table: string;
    readonly fields: Readonly<Record<string, FieldDeclaration>>;
    /** False where the records plugin has no create route: records that carry a file are created by uploading it. */
    readonly creatable: boolean;
    /** Each record carries one uploaded file (the files plugin): the model gains storedFileColumns. */
    readonly storesFile?: boolean;
}

/** The fields every record carries, managed by the server. */
export const systemFields: Readonly<Record<string, FieldDeclaration>> = {
    id: { type: 'string', description: 'Opaque record id.', writable: false, filterable: false },
    created_at: { type: 'string', description: 'When the record was created (UTC, ISO 8601).', writable: false, sortable: true },
    updated_at: { type: 'string', description: 'When the record last changed (UTC, ISO 8601).', writable: false, sortable: true },
    revision: { type: 'integer', description: 'Starts at 1, incremented by every update.', writable: false }
};

/**
 * Columns the server keeps for each record that carries a file. In the model and the
 * database only: never in API output, documentation or exports (they are not `fields`).
 */
export const storedFileColumns: Readonly<Record<string, FieldDeclaration>> = {
    storage_key: { type: 'string', max: 200, writable: false, description: 'Where the file storage keeps the file.' },
    sha256: { type: 'string', max: 64, writable: false, description: 'SHA-256 of the file, lower-case hex.' }
};

/** The field of a record that carries a file which its upload may leave out: it defaults to the file's name without its extension. */
export const fileTitleField = 'title';

/** A record's columns as the API shows them, in its order: `id`, the declared fields, then the system fields. */
export const recordColumns = (resource: ResourceDeclaration): string[] => ['id', ...Object.keys(resource.fields), 'revision', 'created_at', 'updated_at'];

export const isWritable = (field: FieldDeclaration): boolean => field.writable !== false;

export const fieldNamesWhere = (resource: ResourceDeclaration, test: (field: FieldDeclaration) => boolean | undefined): string[] => {

    return Object.entries({ ...resource.fields, ...systemFields })
        .filter(([, field]) => test(field))
        .map(([name]) => name);
};
