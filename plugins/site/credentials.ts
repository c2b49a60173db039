import type { Request } from '@hapi/hapi';

import type { User } from '../../models/user';

/** Who is signed in to the hosted site: `request.auth.credentials.user` of the `site-session` strategy. */
export interface SiteUser {
    id: string;
    email: string;
    familyLongId: string | null;
    role: 'manager' | 'member' | null;
    isSuperAdmin: boolean;
}

/** The credentials of the `site-session` strategy; routes restrict with `auth.access.scope`. */
export interface SiteCredentials {
    user: SiteUser;
    /** `manager` (managers are members too), `member`, `super-admin`. */
    scope: string[];
}

export function siteCredentials(user: User): SiteCredentials {

    const scope = user.role === 'manager' ? ['manager', 'member'] : user.role === 'member' ? ['member'] : [];
    return {
        user: { id: user.id, email: user.email, familyLongId: user.family_long_id, role: user.role, isSuperAdmin: user.is_super_admin },
        scope: user.is_super_admin ? [...scope, 'super-admin'] : scope
    };
}

/** The signed-in user of a route that requires `site-session`. */
export function siteUser(request: Request): SiteUser {

    return (request.auth.credentials as unknown as SiteCredentials).user;
}

/** The family a manager route acts on: only ever the manager's own. */
export function ownFamilyId(request: Request): string {

    return siteUser(request).familyLongId!;
}
