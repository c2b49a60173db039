import Joi from 'joi';

import type { FieldDeclaration, ResourceDeclaration } from '../models/resources';
import { maxCharactersOf, resources } from '../models/resources';
import { recordIdPattern } from './ids';
import { storableText } from './storable-text';
import { stringOfAtMost } from './text-length';

/*
 * The joi schemas of declared fields: what the records API validates, and what its reference
 * documents, both from this one source.
 */

/** An id of the resource's records, of the shape `recordId()` gives them. Reference fields and `{id}` path parameters. */
export const recordIdSchema = (resource: ResourceDeclaration): Joi.StringSchema =>
    Joi.string().pattern(recordIdPattern(resource.idPrefix), `id of a ${resource.singular}`);

function isRealDate(text: string): boolean {

    const [year, month = 1, day = 1] = text.split('-').map(Number);
    // Not Date.UTC(), which reads the years 0 to 99 as 1900 to 1999 (year 79 became 1979).
    const date = new Date(0);
    date.setUTCFullYear(year, month - 1, day);
    return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

const realDate = (value: string, helpers: Joi.CustomHelpers) => (isRealDate(value) ? value : helpers.error('date.real'));
const dateMessages = { 'date.real': '{{#label}} is not a real calendar date' };

/*
 * The ISO 4217 codes in current use, as Node's ICU lists them: no withdrawn codes (DEM, VEF), nor
 * the precious metals, bond-market units and test codes (XAU, XBA, XTS, XXX) that no family pays
 * in. Only new values are checked: a stored code ICU no longer lists still reads, exports and is
 * found by a filter, which takes any well-formed code.
 */
const currencyCodes = new Set(Intl.supportedValuesOf('currency'));
const knownCurrency = (value: string, helpers: Joi.CustomHelpers) => (currencyCodes.has(value) ? value : helpers.error('currency.unknown'));
const currencyMessage = '{{#label}} must be an ISO 4217 currency code in current use, such as EUR or USD';
// The pattern is what the API reference can show; the list is too long for an enum there, and would change with Node's ICU.
const wellFormedCurrency = () => Joi.string().pattern(/^[A-Z]{3}$/, 'ISO 4217 code')
    .messages({ 'string.pattern.name': '{{#label}} must be an ISO 4217 currency code: three capital letters, such as EUR or USD' });

// Free text refuses U+0000; every other string type's pattern or value list leaves no room for one.
const schemaByType: Record<FieldDeclaration['type'], (field: FieldDeclaration) => Joi.Schema> = {
    string: (field) => storableText(stringOfAtMost(maxCharactersOf(field))),
    text: (field) => storableText(stringOfAtMost(maxCharactersOf(field)).allow('')),
    enum: (field) => Joi.string().valid(...(field.values ?? [])),
    date: () => Joi.string().pattern(/^\d{4}-\d{2}-\d{2}$/, 'YYYY-MM-DD').custom(realDate).messages(dateMessages),
    partial_date: () => Joi.string().pattern(/^\d{4}(-\d{2}(-\d{2})?)?$/, 'YYYY, YYYY-MM or YYYY-MM-DD').custom(realDate).messages(dateMessages),
    integer: () => Joi.number().integer().min(Number.MIN_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER),
    currency: () => wellFormedCurrency().custom(knownCurrency).messages({ 'string.pattern.name': currencyMessage, 'currency.unknown': currencyMessage }),
    reference: (field) => recordIdSchema(resources[field.references!])
};

/**
 * What a filter value of a type takes where it differs from a new value: the shape of the values
 * stored, without the checks only new values get, so that a filter finds every stored value.
 */
const filterSchemaByType: Partial<typeof schemaByType> = {
    currency: wellFormedCurrency
};

/** The joi schema of one field's value, from its declaration. */
export function fieldSchema(field: FieldDeclaration): Joi.Schema {

    return schemaByType[field.type](field).description(field.description);
}

/** The joi schema of a `filter[field]` value: a value the field can hold, as stored (a currency no longer in use, say). */
export function filterSchema(field: FieldDeclaration): Joi.Schema {

    return (filterSchemaByType[field.type] ?? schemaByType[field.type])(field).description(field.description);
}
