import type { RouteOptionsPayload, RouteOptionsValidate } from '@hapi/hapi';
import Joi from 'joi';

import { apiError, failedValidationPart } from '../../lib/errors';
import { recordIdPattern } from '../../lib/ids';
import { storableText } from '../../lib/storable-text';

/** The ids the messaging API takes, by their prefix (lib/ids.ts recordId). */
export const conversationId = Joi.string().pattern(recordIdPattern('cnv'), 'a conversation id (cnv_…)');
export const messageId = Joi.string().pattern(recordIdPattern('msg'), 'a message id (msg_…)');
export const userId = Joi.string().pattern(recordIdPattern('usr'), 'a user id (usr_…)');
export const uploadId = Joi.string().pattern(recordIdPattern('upl'), 'an upload id (upl_…)');

/** The most files one message carries. */
export const maxAttachments = 10;

/**
 * Text a user writes (a message, a group's name): stored as sent or refused (no U+0000, no lone surrogate). Its
 * length is the policy's (policies/messaging.yaml), checked by the services in characters.
 */
export const userText = storableText(Joi.string().allow(''));

/** A JSON body, parsed: at most 64 KiB (a message is at most a few thousand characters). */
export const jsonBody: RouteOptionsPayload = { parse: true, allow: 'application/json', maxBytes: 64 * 1024 };

/** The words a path id that is no id of its kind is answered with: the same 404 as an unknown one, without a query. */
const unknownIn = (params: Record<string, unknown>): string => Object.values(params).join(' / ');

/**
 * Validation of a route naming records in its path: an id of the wrong shape is a 404 like an unknown one
 * (and never reaches the database); a bad query or body gets the server's usual 400.
 */
export function pathIds(params: Record<string, Joi.Schema>, rest: Omit<RouteOptionsValidate, 'params' | 'failAction'> = {}): RouteOptionsValidate {

    return {
        params: Joi.object(Object.fromEntries(Object.entries(params).map(([name, schema]) => [name, schema.required()]))),
        query: Joi.object({}),
        ...rest,
        failAction(request, h, error) {

            if (failedValidationPart(error) === 'params') {
                throw apiError(404, 'not_found', `No such record: ${unknownIn(request.params)}.`);
            }

            const usual = request.server.settings.routes?.validate?.failAction;
            if (typeof usual !== 'function') {
                throw error;
            }

            return usual.call(request.route.settings.bind ?? null, request, h, error);
        }
    };
}
