import { apiKeyPrefix } from '../../gateway/api-key-token';
import type { RouteGroup } from '../../gateway/policies/gateway-file';
import type { ErrorCode } from '../../lib/errors';
import type { SecuritySchemeObject } from './openapi-types';

interface AuthSchemeDocs {
    securityScheme: SecuritySchemeObject;
    /** What the scheme answers when authentication fails. */
    errors: readonly ErrorCode[];
}

/** The auth schemes gateway.yaml can give a route group, as OpenAPI security schemes. */
const authSchemes: Readonly<Record<string, AuthSchemeDocs>> = {
    'api-key': {
        securityScheme: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: `${apiKeyPrefix}…`,
            description: `Send \`Authorization: Bearer <API key>\`. Keys look like \`${apiKeyPrefix}\` followed by 36 base62 characters, the last six a checksum, so secret scanners recognise a leaked key. `
                + 'A key reaches one family, chosen resources and chosen operations; it is shown once when created and stored only as a keyed hash.'
        },
        errors: ['invalid_key']
    }
};

export function authSchemeOf(group: RouteGroup): AuthSchemeDocs {

    const docs = authSchemes[group.auth.scheme];
    if (!docs) {
        throw new Error(`API reference: auth scheme "${group.auth.scheme}" of route group "${group.name}" is not described in plugins/docs/security.ts`);
    }

    return docs;
}
