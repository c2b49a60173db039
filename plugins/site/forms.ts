import Boom from '@hapi/boom';
import Joi from 'joi';

import { ServiceError } from '../../lib/errors';
import { storableText } from '../../lib/storable-text';

/** A group of checkboxes: absent when none is ticked, a string for one, an array for several. */
export const ticks = Joi.array().items(Joi.string().max(64)).single().default([]);

/** An id in a path: what the services create (`key_…`, `fam_…`), nothing else reaches a query. */
export const idParam = Joi.string().pattern(/^[a-z]+_[0-9A-Za-z]{8,40}$/).required();

/** Text typed into a form or a search box: stored as typed or refused with a 400 (lib/storable-text.ts). */
export const typedText = (max: number) => storableText(Joi.string().max(max));

/** A reason or description typed into a form. */
export const freeText = (max: number) => typedText(max).trim().allow('').default('');

/**
 * A service's refusal as words for the form that asked (a Lite family enabling the API,
 * a legacy key gaining write scopes); a "not found" stays a 404 page; anything else is a bug.
 */
export function refusalOf(error: unknown): { message: string; statusCode: number } {

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
