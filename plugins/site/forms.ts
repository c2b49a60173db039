import Boom from '@hapi/boom';
import Joi from 'joi';

import { ServiceError } from '../../lib/errors';
import { storableText } from '../../lib/storable-text';
import { stringOfAtMost, utf16UnitsFor } from '../../lib/text-length';
import { textLimits, type TextLimit } from '../../lib/text-limits';

/** A group of checkboxes: absent when none is ticked, a string for one, an array for several. */
export const ticks = Joi.array().items(Joi.string().max(64)).single().default([]);

/** An id in a path: what the services create (`key_…`, `fam_…`), nothing else reaches a query. */
export const idParam = Joi.string().pattern(/^[a-z]+_[0-9A-Za-z]{8,40}$/).required();

/**
 * Text typed into a form or a search box for a field of at most `textLimits[limit]` characters;
 * stored as typed or refused with a 400 (lib/storable-text.ts). The field's `maxlength` counts
 * UTF-16 units, so it is the most those characters can take (the `maxlength` helper), which lets
 * through as many characters when none is beyond the BMP. Joi takes that many characters, so what a
 * browser sends always reaches the rule that counts `textLimits[limit]` (the service's), which
 * refuses more in words on the form; only a hand-made request beyond it gets the 400 page.
 */
export const typedText = (limit: TextLimit) => storableText(stringOfAtMost(utf16UnitsFor(textLimits[limit])));

/** A name, reason or description typed into a form. */
export const freeText = (limit: TextLimit) => typedText(limit).trim().allow('').default('');

/** Why a service refused a form, in words for its page, and the page's status. */
export interface Refusal {
    message: string;
    statusCode: number;
}

/**
 * A service's refusal as words for the form that asked (a Lite family enabling the API,
 * a legacy key gaining write scopes); a "not found" stays a 404 page; anything else is a bug.
 */
export function refusalOf(error: unknown): Refusal {

    if (!(error instanceof ServiceError)) {
        throw error;
    }

    if (error.statusCode === 404) {
        throw Boom.notFound();
    }

    return { message: error.message, statusCode: error.statusCode === 400 ? 422 : error.statusCode };
}

/** What a service found, or the 404 page when it says there is no such thing (another family's included). */
export async function found<T>(work: Promise<T>): Promise<T> {

    try {
        return await work;
    }
    catch (error) {
        if (error instanceof ServiceError && error.statusCode === 404) {
            throw Boom.notFound();
        }

        throw error;
    }
}
