import type { ResourceRecord } from '../../models/resource-record';
import type { ResourceName } from '../../models/resources';
import type { RecordRow, SerializedRecord } from './serialized-record';

/**
 * What another plugin adds to a resource of the records API, through
 * `server.plugins.records.extend()` (the files plugin: signed URLs, freeing files),
 * so that this plugin never needs to know the other one.
 */
/** A field `serialize()` adds, as the API reference describes it (JSON Schema). */
export type AddedField = Readonly<{ type: string; format?: string; description: string }>;

export interface RecordExtension {
    /** Adds values computed at response time to a record as the JSON API shows it. */
    serialize?(row: RecordRow, serialized: SerializedRecord): void;
    /** The fields `serialize()` may add, for the API reference; a record may lack them. */
    fields?: Readonly<Record<string, AddedField>>;
    /** Runs once a deletion has committed; it must not throw (the record is gone either way). */
    afterDelete?(record: ResourceRecord): Promise<void>;
}

/** The extensions of one server's records API, by resource. */
export class RecordExtensions {

    private readonly byResource = new Map<ResourceName, RecordExtension[]>();

    add(resource: ResourceName, extension: RecordExtension): void {

        this.byResource.set(resource, [...this.of(resource), extension]);
    }

    /** Whether any extension adds values to the resource's records. */
    serializes(resource: ResourceName): boolean {

        return this.of(resource).some((extension) => extension.serialize);
    }

    /** The fields the extensions may add to the resource's records, by name. */
    addedFields(resource: ResourceName): Record<string, AddedField> {

        return Object.assign({}, ...this.of(resource).map((extension) => extension.fields ?? {}));
    }

    serialize(resource: ResourceName, row: RecordRow, serialized: SerializedRecord): SerializedRecord {

        for (const extension of this.of(resource)) {
            extension.serialize?.(row, serialized);
        }

        return serialized;
    }

    async afterDelete(resource: ResourceName, record: ResourceRecord): Promise<void> {

        for (const extension of this.of(resource)) {
            await extension.afterDelete?.(record);
        }
    }

    private of(resource: ResourceName): RecordExtension[] {

        return this.byResource.get(resource) ?? [];
    }
}
