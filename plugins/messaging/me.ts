import type { Request } from '@hapi/hapi';

import { principalOf } from '../../gateway/principal';

/** GET /me: whom the device speaks for, and what it may do, until when. */
export function me(request: Request) {

    const { user, family, device } = principalOf(request);
    return {
        user: { id: user!.id, email: user!.email },
        family: { id: family.familyLongId, name: family.name },
        device: { id: device!.grantId, name: device!.deviceName, client_id: device!.clientId },
        scopes: device!.scopes,
        token_expires_at: device!.tokenExpiresAt.toISOString()
    };
}
