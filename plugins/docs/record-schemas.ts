import { fieldSchema } from '../../lib/field-schemas';
import type { LivingPersonsPolicy } from '../../lib/privacy/living-persons';
import { isWritable, resourceNames, resources, systemFields, type FieldDeclaration, type ResourceDeclaration, type ResourceName } from '../../models/resources';
import { jsonSchemaOf } from './json-schema';
import type { JsonSchema } from './openapi-types';
import { redactedFieldProperty, redactedProperty } from './redacted-records';

/** `finance entry` → `FinanceEntry`: the component name of a resource's records. */
export function recordSchemaName(resource: ResourceDeclaration): string {

    return resource.singular.split(/\s+/).map((word) => word[0].toUpperCase() + word.slice(1)).join('');
}

export const recordSchemaRef = (name: ResourceName) => ({ $ref: `#/components/schemas/${recordSchemaName(resources[name])}` });

/** Only a field required on create, or one with a default, is never empty. */
const canBeNull = (field: FieldDeclaration) => !field.required && field.default === undefined;

/** A field as the API returns it: the same JSON Schema its validation has, plus what the declaration says. */
function fieldProperty(field: FieldDeclaration, system: boolean): JsonSchema {

    const property = jsonSchemaOf(fieldSchema(field));
    if (!system && canBeNull(field)) {
        property.type = [property.type, 'null'];
    }

    return {
        ...property,
        ...(system || !isWritable(field) ? { readOnly: true } : {}),
        ...(field.searchable ? { 'x-searchable': true } : {}),
        ...(field.sortable ? { 'x-sortable': true } : {}),
        ...(field.filterable ? { 'x-filterable': true } : {})
    };
}

/**
 * A record as every response shows it (plugins/records/serialize.ts): its id, its declared fields, then revision and
 * timestamps, what other plugins add to it (`added`, read-only, not on every record), and whether a redacted key's
 * answer redacted it (`redacted`, only in those answers).
 */
function recordSchema(resource: ResourceDeclaration, added: Readonly<Record<string, JsonSchema>>, livingPersons: LivingPersonsPolicy): JsonSchema {

    const { id, ...otherSystemFields } = systemFields;
    // A record's id has the shape of a reference to its own resource.
    const properties: Record<string, JsonSchema> = { id: fieldProperty({ ...id, type: 'reference', references: resource.name }, true) };
    for (const [name, field] of Object.entries(resource.fields)) {
        properties[name] = redactedFieldProperty(resource, name, fieldProperty(field, false), livingPersons);
    }

    for (const [name, field] of Object.entries(otherSystemFields)) {
        properties[name] = fieldProperty(field, true);
    }

    const required = Object.keys(properties);
    for (const [name, schema] of Object.entries(added)) {
        properties[name] = { ...schema, readOnly: true };
    }

    properties.redacted = redactedProperty(resource, livingPersons);

    return {
        type: 'object',
        description: resource.description,
        properties,
        required
    };
}

/** The component schema of every resource's records, by component name, with the fields other plugins add to them. */
export function recordSchemas(addedFields: (resource: ResourceName) => Readonly<Record<string, JsonSchema>>, livingPersons: LivingPersonsPolicy): Record<string, JsonSchema> {

    return Object.fromEntries(resourceNames.map((name) => [recordSchemaName(resources[name]), recordSchema(resources[name], addedFields(name), livingPersons)]));
}
