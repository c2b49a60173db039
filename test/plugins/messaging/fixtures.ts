import { randomUUID } from 'crypto';

import { expect } from '@hapi/code';
import type { Server, ServerInjectResponse } from '@hapi/hapi';

import type { User } from '../../../models/user';
import { connectedDevice } from '../../helpers/devices';
import { messagingFamily } from '../../helpers/messaging';

/** A user's connected device, calling /messaging/v1 through server.inject. */
export interface MessagingClient {
    user: User;
    token: string;
    /** server.inject of `/messaging/v1${path}` with the device's token; `headers` may override the token. */
    call(method: string, path: string, payload?: unknown, headers?: Record<string, string>): Promise<ServerInjectResponse>;
    /** A write with a fresh Idempotency-Key. */
    write(method: string, path: string, payload?: unknown, headers?: Record<string, string>): Promise<ServerInjectResponse>;
}

export async function messagingClient(server: Server, user: User, scope?: string): Promise<MessagingClient> {

    const { access_token: token } = await connectedDevice(server, user, { scope });
    const call: MessagingClient['call'] = (method, path, payload, headers = {}) => server.inject({
        method,
        url: `/messaging/v1${path}`,
        headers: { authorization: `Bearer ${token}`, ...headers },
        ...(payload === undefined ? {} : { payload: payload as object })
    });
    return { user, token, call, write: (method, path, payload, headers = {}) => call(method, path, payload, { 'idempotency-key': randomUUID(), ...headers }) };
}

/** A family of `count` users (the first a manager), each with a connected device. */
export async function messagingClients(server: Server, count: number): Promise<MessagingClient[]> {

    const { users } = await messagingFamily(server, count);
    return Promise.all(users.map((user) => messagingClient(server, user)));
}

export const bodyOf = (response: ServerInjectResponse) => JSON.parse(response.payload);

/** The answer's `data`, once its status is `status`. */
export function dataOf(response: ServerInjectResponse, status = 200) {

    expect(response.statusCode, response.payload).to.equal(status);
    return bodyOf(response).data;
}

/** An error answer with exactly this status and code. */
export function expectError(response: ServerInjectResponse, statusCode: number, code: string): void {

    expect(response.statusCode, response.payload).to.equal(statusCode);
    expect(bodyOf(response).code, response.payload).to.equal(code);
}

/** A direct conversation of the first client with the second, through the API. */
export async function directConversation(one: MessagingClient, other: MessagingClient): Promise<{ id: string }> {

    return dataOf(await one.write('POST', '/conversations', { kind: 'direct', user_id: other.user.id }), 201);
}
