import type { Boom } from '@hapi/boom';
import type { RouteOptionsValidate } from '@hapi/hapi';
import Joi from 'joi';

import { apiError, failedValidationPart } from '../../lib/errors';
import { recordIdSchema } from '../../lib/field-schemas';
import type { ResourceDeclaration } from '../../models/resources';

/** The family has no such record: unknown, another family's or no id at all, the answer is the same (DESIGN.md §4). */
export const recordNotFound = (resource: ResourceDeclaration, id: string): Boom => apiError(404, 'not_found', `No ${resource.singular} ${id}.`);

/**
 * Validation of a route naming one record in its path. Anything but an id of the resource's
 * shape is answered as an unknown id, without a query (SQLite answered an id holding U+0000
 * with a 500: Sequelize writes the value into the SQL text). Bad queries and bodies get the
 * server's usual answer.
 */
export function recordIdValidation(resource: ResourceDeclaration): Pick<RouteOptionsValidate, 'params' | 'failAction'> {

    return {
        params: Joi.object({ id: recordIdSchema(resource).required() }),
        failAction(request, h, error) {

            if (failedValidationPart(error) === 'params') {
                throw recordNotFound(resource, request.params.id as string);
            }

            // The deployment's own failAction (a 400 naming the problem), else hapi's default.
            const usual = request.server.settings.routes?.validate?.failAction;
            if (typeof usual !== 'function') {
                throw error;
            }

            return usual.call(request.route.settings.bind ?? null, request, h, error);
        }
    };
}
