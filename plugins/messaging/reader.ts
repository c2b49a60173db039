import type { Request } from '@hapi/hapi';
import Joi from 'joi';

import { principalOf } from '../../gateway/principal';
import type { MessagingActor } from '../../lib/messaging/context';

/** A cursor of sync or the stream as a client sends it back (the service checks what it says). */
export const changeCursorSchema = Joi.string().pattern(/^[A-Za-z0-9_-]{1,80}$/)
    .messages({ 'string.pattern.base': '{#label} must be a cursor this service gave (`next_cursor`, `cursor`, or an event\'s id), unchanged' });

/** Who reads the changes: the device's user. Being a family manager changes nothing of what one sees. */
export function readerOf(request: Request): MessagingActor {

    const { user, family } = principalOf(request);
    return { userId: user!.id, familyLongId: family.familyLongId, isManager: false };
}
