import type { AuthScheme, AuthSchemeDocs } from '../../gateway/auth-scheme';
import type { RouteGroup } from '../../gateway/policies/gateway-file';

/** How the reference describes the auth scheme of `group`: each scheme describes itself (gateway/auth-scheme.ts). */
export function authSchemeOf(group: RouteGroup, schemes: Readonly<Record<string, AuthScheme>>): AuthSchemeDocs {

    const scheme = schemes[group.auth.scheme];
    if (!scheme) {
        throw new Error(`API reference: auth scheme "${group.auth.scheme}" of route group "${group.name}" is not one the gateway was given`);
    }

    return scheme.docs;
}
