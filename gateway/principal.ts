import type { Request } from '@hapi/hapi';

import type { LivingPersonsAccess } from '../models/api-key';
import type { Family } from '../models/family';

/** Whom a request speaks for: an API key acts on its own, a user through a token of theirs. */
export interface PrincipalIdentity {
    kind: 'key' | 'user';
    id: string;
}

/** The family a principal acts in, as the policies read it. */
export interface PrincipalFamily {
    familyLongId: string;
    name: string;
    plan: string;
    apiEnabled: boolean;
    /** The resources the family exposes; a principal reaches the intersection with its own scopes. */
    apiResources: readonly string[];
    /** A super-admin suspended the family's API (every credential of it). */
    suspended: boolean;
    /** A super-admin suspended the family's messaging (the messaging route group). */
    messagingSuspended: boolean;
}

/** What the credential was granted. */
export interface GrantedScopes {
    resources: readonly string[];
    operations: readonly string[];
    /** Only scopes.yaml's legacy_key_operations count, whatever `operations` holds (an API key from before write scopes). */
    legacyOperationsOnly: boolean;
    /** What the credential sees of living persons: `redacted` hides their details (policies/privacy.yaml says who is living). */
    livingPersons: LivingPersonsAccess;
}

/** One counter of the rate limit: `policy` is named in the RateLimit headers, `subject` is whom it counts. */
export interface RateLimitSubject {
    policy: string;
    subject: string;
}

/** The user a principal speaks for (a device token's), as the account-state policy reads them. */
export interface PrincipalUser {
    id: string;
    email: string;
    disabled: boolean;
}

/** The connected device whose access token authenticated the request. */
export interface PrincipalDevice {
    /** Its grant (`dev_…`). */
    grantId: string;
    clientId: string;
    deviceName: string;
    /** What the user approved (policies/messaging.yaml); the token-scope policy reads them. */
    scopes: readonly string[];
    /** When the access token presented expires: refused from then on, cached or not. */
    tokenExpiresAt: Date;
}

/**
 * What every gateway policy, and every plugin behind the gateway, knows of an authenticated
 * request (request.auth.credentials): an auth scheme's verifier produces it from its credential.
 */
export interface Principal {
    who: PrincipalIdentity;
    /** What refusals call the credential: "This API key has no access to persons." */
    credentialName: string;
    family: PrincipalFamily;
    scopes: GrantedScopes;
    /** Set when the credential speaks for a user. */
    user?: PrincipalUser;
    /** Set for a device's access token. */
    device?: PrincipalDevice;
    rateLimitSubjects: {
        /** Counted against a preset's per_key limits: the credential itself. */
        own: RateLimitSubject;
        /** Counted against its per_family limits, shared by all of the family's credentials. */
        family: RateLimitSubject;
        /** Counted against a preset's per_user limits, when it has them: all the user's devices together. */
        user?: RateLimitSubject;
    };
}

/** What a principal carries of its family, read from the family's row: the same for every auth scheme. */
export function principalFamily(family: Family): PrincipalFamily {

    return {
        familyLongId: family.family_long_id,
        name: family.name,
        plan: family.plan,
        apiEnabled: family.api_enabled,
        apiResources: family.api_resources,
        suspended: Boolean(family.api_suspended_at),
        messagingSuspended: Boolean(family.messaging_suspended_at)
    };
}

/** The principal of a request a gateway route group authenticated. */
export function principalOf(request: Request): Principal {

    return request.auth.credentials as unknown as Principal;
}
