import type { Request, ResponseToolkit } from '@hapi/hapi';

import { principalOf } from '../../gateway/principal';
import { apiError } from '../../lib/errors';
import type { FilesContext } from './context';
import { signedFileUrl } from './signed-urls';

/**
 * `GET <prefix>/documents/{id}/file`: a redirect to a signed URL that works for seconds.
 * The only way to a document's bytes: the key's scopes are checked here, by the gateway,
 * and the short-lived URL carries no key.
 */
export function documentFileHandler(context: FilesContext) {

    return async (request: Request, h: ResponseToolkit) => {

        const id = request.params.id as string;
        const record = await context.models.records.documents.findOne({ where: { id, family_long_id: principalOf(request).family.familyLongId } });
        if (!record) {
            throw apiError(404, 'not_found', `No document ${id}.`);
        }

        if (!record.get('storage_key')) {
            throw apiError(404, 'not_found', `Document ${id} has no file.`);
        }

        // Each redirect is fresh: a cached one would point at an expired URL. No body, so no Content-Type
        // (h.redirect() would send an empty text/html one, which the reference does not promise).
        return h.response().redirect(signedFileUrl(context, 'documents', record.get({ plain: true })).url).header('cache-control', 'no-store');
    };
}
