import type { Server } from '@hapi/hapi';

import { requestDeviceAuthorization, type DeviceAuthorization } from '../../lib/accounts/device-flow';
import { createFamily } from '../../lib/accounts/families';
import { recordId } from '../../lib/ids';
import type { User } from '../../models/user';

/** A family of its own with one member (no password: these tests never sign in through the site). */
export async function familyMember(server: Server, options: { plan?: string; role?: 'manager' | 'member' } = {}): Promise<User> {

    const accounts = server.app.services.accounts;
    const family = await createFamily(accounts, { name: 'Device family', plan: options.plan ?? 'family' });
    return accounts.models.User.create({
        id: recordId('usr'),
        email: `${recordId('mail').toLowerCase()}@example.com`,
        password_hash: '$2b$12$notapasswordhashnotapasswordhashnotapasswordhashnotapa',
        family_long_id: family.family_long_id,
        role: options.role ?? 'member'
    });
}

/** A device authorization request of the desktop client, as POST /oauth/device/code makes it. */
export function deviceRequest(server: Server, input: { scope?: string; deviceName?: string } = {}): Promise<DeviceAuthorization> {

    return requestDeviceAuthorization(server.app.services.accounts, { clientId: 'family-records-desktop', from: '192.0.2.7', ...input });
}
