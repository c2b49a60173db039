import type { RouteOptions, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';

/**
 * The site's routes with their query schemas set to drop the parameters they do not know: mail
 * and chat tools add their own to links (`utm_source`, `fbclid`), and such a link must open the
 * page, not a 400. The parameters a page knows are validated as declared. The site's routes only:
 * the records API refuses an unknown parameter (400 invalid_request), as its contract says.
 */
export function ignoringUnknownQuery(routes: ServerRoute[]): ServerRoute[] {

    return routes.map((route) => {

        const options = route.options as RouteOptions | undefined;
        const query = options?.validate?.query;
        if (!Joi.isSchema(query)) {
            return route;
        }

        return { ...route, options: { ...options, validate: { ...options!.validate, query: query.options({ stripUnknown: { objects: true } }) } } };
    });
}
