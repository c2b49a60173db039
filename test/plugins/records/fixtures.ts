/*
 * Shared helpers of the records API tests: valid bodies derived from the resource
 * declarations, records made the way the files capability will make them, and the
 * error-payload assertion every test uses.
 */
import type { Server, ServerInjectResponse } from '@hapi/hapi';
import { expect } from '@hapi/code';

import { isWritable, resourceNames, resources, type FieldDeclaration, type FieldType, type ResourceDeclaration, type ResourceName } from '../../../models/resources';
import { createRecord } from '../../../plugins/records/writes';

export type Body = Record<string, unknown>;

/** The creatable resources (POST) and the ones whose records arrive with file uploads. */
export const creatableResources = resourceNames.filter((name) => resources[name].creatable);
export const uploadedResources = resourceNames.filter((name) => !resources[name].creatable);

/** `2026-01-31T12:00:00.000Z`: what every record's timestamps look like. */
export const isoTimestamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** An id with the resource's prefix and nothing else recognisable in it. */
export const idPattern = (resource: ResourceDeclaration) => new RegExp(`^${resource.idPrefix}_[0-9A-Za-z]{20}$`);

/**
 * A valid value of each field type. `variant` picks a different value that sorts
 * after the previous ones, the same on SQLite and PostgreSQL (lower-case ASCII, padded digits).
 */
const sampleValues: Record<Exclude<FieldType, 'reference'>, (field: FieldDeclaration, variant: number) => unknown> = {
    string: (_field, variant) => `sample ${letters(variant)}`,
    text: (_field, variant) => `longer text ${letters(variant)}`,
    enum: (field, variant) => field.values![variant % field.values!.length],
    date: (_field, variant) => new Date(Date.UTC(2020, 0, 10 + variant)).toISOString().slice(0, 10),
    partial_date: (_field, variant) => `${1950 + variant}-06`,
    integer: (_field, variant) => 1250 + variant,
    currency: (_field, variant) => ['AUD', 'CHF', 'EUR', 'GBP', 'USD'][variant % 5]
};

const letters = (variant: number) => `${'abcdefghijklmnopqrstuvwxyz'[Math.floor(variant / 26) % 26]}${'abcdefghijklmnopqrstuvwxyz'[variant % 26]}`;

/** A valid value for a field that is not a reference (those need a real record). */
export function sampleValue(field: FieldDeclaration, variant = 0): unknown {

    if (field.type === 'reference') {
        throw new TypeError('A reference needs a real record: create one and use its id.');
    }

    return sampleValues[field.type](field, variant);
}

/** Entries of the resource's fields that are not references, optionally only the writable or required ones. */
function plainFields(resource: ResourceDeclaration, test: (field: FieldDeclaration) => boolean): [string, FieldDeclaration][] {

    return Object.entries(resource.fields).filter(([, field]) => field.type !== 'reference' && test(field));
}

/** A valid create body: every writable field that is not a reference, or only the required ones. */
export function createBody(resourceName: ResourceName, options: { variant?: number; requiredOnly?: boolean } = {}): Body {

    const fields = plainFields(resources[resourceName], (field) => isWritable(field) && (!options.requiredOnly || field.required === true));
    return Object.fromEntries(fields.map(([name, field]) => [name, sampleValue(field, options.variant ?? 0)]));
}

/** Every non-reference field, read-only ones included: what the server itself may store. */
export function storedValues(resourceName: ResourceName, variant = 0): Body {

    return Object.fromEntries(plainFields(resources[resourceName], () => true).map(([name, field]) => [name, sampleValue(field, variant)]));
}

/**
 * Writes a record straight through the records plugin's write path, as the files
 * capability will for gallery and documents (which have no POST). Returns its id.
 */
export async function insertRecord(server: Server, familyLongId: string, resourceName: ResourceName, values: Body = storedValues(resourceName)): Promise<string> {

    const { models, transaction, changeBus } = server.app.services;
    const record = await createRecord({ models, transaction, changeBus, familyLongId }, resources[resourceName], values);
    return record.id;
}

/** The JSON body of a response. */
export const bodyOf = (response: ServerInjectResponse) => JSON.parse(response.payload);

/** An error response with exactly this status and code, its message naming `mentioning` when given. */
export function expectError(response: ServerInjectResponse, statusCode: number, code: string, mentioning?: string): void {

    expect(response.statusCode, response.payload).to.equal(statusCode);
    const payload = bodyOf(response);
    expect(payload.statusCode).to.equal(statusCode);
    expect(payload.code).to.equal(code);
    if (mentioning !== undefined) {
        expect(payload.message).to.contain(mentioning);
    }
}

/** Expects a 2xx answer and returns its `data`. */
export function dataOf(response: ServerInjectResponse, statusCode = 200): any {

    expect(response.statusCode, response.payload).to.equal(statusCode);
    return bodyOf(response).data;
}

/** Lets the clock move on, so a later write gets a later `updated_at` (timestamps have millisecond precision). */
export const nextMillisecond = () => new Promise((resolve) => setTimeout(resolve, 2));
