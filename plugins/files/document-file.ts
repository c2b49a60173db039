import type { Request, ResponseToolkit } from '@hapi/hapi';

import { principalOf } from '../../gateway/principal';
import { apiError } from '../../lib/errors';
import { resources } from '../../models/resources';
import type { FilesContext } from './context';
import { fileWithheld } from './living-files';
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

        // A document of a living person shows a redacted key no file, as its record shows no URL.
        const redaction = context.records.redactionOf(request);
        if (!record.get('storage_key') || await fileWithheld(resources.documents, record, redaction)) {
            throw apiError(404, 'not_found', `Document ${id} has no file.`);
        }

        // Each redirect is fresh: a cached one would point at an expired URL. No body, so no Content-Type
        // (h.redirect() would send an empty text/html one, which the reference does not promise).
        const { url } = signedFileUrl(context, 'documents', record.get({ plain: true }), redaction !== undefined);
        return h.response().redirect(url).header('cache-control', 'no-store');
    };
}
