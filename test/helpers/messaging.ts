import type { Server } from '@hapi/hapi';

import { createFamily } from '../../lib/accounts/families';
import { recordId } from '../../lib/ids';
import type { MessagingActor } from '../../lib/messaging/context';
import type { User } from '../../models/user';

/** A family of its own with `count` users (the first a manager, no passwords) and each one's messaging actor. */
export async function messagingFamily(server: Server, count: number, options: { plan?: string } = {}): Promise<{ familyLongId: string; users: User[]; actors: MessagingActor[] }> {

    const accounts = server.app.services.accounts;
    const family = await createFamily(accounts, { name: 'Messaging family', plan: options.plan ?? 'family' });
    const users: User[] = [];
    for (let index = 0; index < count; ++index) {
        users.push(await accounts.models.User.create({
            id: recordId('usr'),
            email: `${recordId('mail').toLowerCase()}@example.com`,
            password_hash: '$2b$12$notapasswordhashnotapasswordhashnotapasswordhashnotapa',
            family_long_id: family.family_long_id,
            role: index === 0 ? 'manager' : 'member'
        }));
    }

    const actors = users.map((user) => ({ userId: user.id, familyLongId: family.family_long_id, isManager: user.role === 'manager' }));
    return { familyLongId: family.family_long_id, users, actors };
}
