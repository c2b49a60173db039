import type { Server, ServerInjectResponse } from '@hapi/hapi';

import { recordId } from '../../lib/ids';
import type { OutboxItem } from '../../lib/messaging/conflicts';
import type { User } from '../../models/user';
import { connectedDevice } from './devices';
import { messagingFamily } from './messaging';

/** A connected device of `user` (connectedDevice()): its access token. */
export async function deviceToken(server: Server, user: User, scope?: string): Promise<string> {

    return (await connectedDevice(server, user, { scope })).access_token;
}

/** A request of the messaging API with a device's access token. */
export function messagingRequest(server: Server, token: string, method: string, url: string, payload?: object,
    headers: Record<string, string> = {}): Promise<ServerInjectResponse> {

    return server.inject({ method, url: `/messaging/v1${url}`, headers: { authorization: `Bearer ${token}`, ...headers }, payload });
}

/** A family of `count` users (messagingFamily()), each with a connected device: its access token. */
export async function connectedFamily(server: Server, count: number): Promise<Awaited<ReturnType<typeof messagingFamily>> & { tokens: string[] }> {

    const family = await messagingFamily(server, count);
    const tokens: string[] = [];
    for (const user of family.users) {
        tokens.push(await deviceToken(server, user));
    }

    return { ...family, tokens };
}

/** An outbox item as the desktop client makes it. */
export function outboxItem(conversationId: string, body: string, extra: Partial<OutboxItem> = {}): OutboxItem {

    return { idempotency_key: recordId('key'), conversation_id: conversationId, client_time: new Date().toISOString(), body, ...extra };
}
