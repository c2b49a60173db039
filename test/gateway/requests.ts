import type { Server, ServerInjectResponse } from '@hapi/hapi';
import { expect } from '@hapi/code';

import { createApiKey } from '../../lib/accounts/api-keys';
import { suspendFamily } from '../../lib/accounts/families';
import { allOperations } from '../helpers/server';

/** Bodies the gateway tests create and change records with. */
export const newPerson = { first_name: 'Ada', last_name: 'Lovelace' };
export const personChanges = { first_name: 'Augusta' };
const bodies = {
    persons: { create: newPerson, update: personChanges },
    events: { create: { title: 'Reunion' }, update: { title: 'Family reunion' } }
};

export interface RouteRequest {
    method: string;
    url: string;
    payload?: object;
}

/** One request to each route of a resource: list, read, create, update, delete. */
export function everyRouteOf(resource: keyof typeof bodies, id = 'rec_unknown'): RouteRequest[] {

    const base = `/api/v1/${resource}`;
    return [
        { method: 'GET', url: base },
        { method: 'GET', url: `${base}/${id}` },
        { method: 'POST', url: base, payload: bodies[resource].create },
        { method: 'PATCH', url: `${base}/${id}`, payload: bodies[resource].update },
        { method: 'DELETE', url: `${base}/${id}` }
    ];
}

/** server.inject with `Authorization: Bearer <key>`: another key of a family, or another instance. */
export function injectWithKey(server: Server, key: string, method: string, url: string, payload?: object): Promise<ServerInjectResponse> {

    return server.inject({ method, url, headers: { authorization: `Bearer ${key}` }, ...(payload === undefined ? {} : { payload }) });
}

/** One more key of an existing family; returns the key itself. */
export async function anotherKey(server: Server, familyLongId: string, scopes: { resources: string[]; operations?: string[] }): Promise<string> {

    const { key } = await createApiKey(server.app.services.accounts, {
        familyLongId,
        name: 'another key',
        resources: scopes.resources,
        operations: scopes.operations ?? allOperations,
        createdBy: 'test'
    });

    return key;
}

/** Suspends a family as an operator would (reason "Unusual traffic", by "test"). */
export async function suspendForUnusualTraffic(server: Server, familyLongId: string): Promise<void> {

    await suspendFamily(server.app.services.accounts, familyLongId, 'Unusual traffic', 'test');
}

function describeRequest(response: ServerInjectResponse): string {

    return `${response.request.method.toUpperCase()} ${response.request.url.pathname}${response.request.url.search}: ${response.payload}`;
}

/** Asserts a success with exactly this status. */
export function expectSuccess(response: ServerInjectResponse, statusCode = 200): void {

    expect(response.statusCode, describeRequest(response)).to.equal(statusCode);
}

/** Asserts an error of the contract: exactly this status, a Boom payload and this stable code. Returns the payload. */
export function expectRefusal(response: ServerInjectResponse, statusCode: number, code: string): { message: string } {

    expect(response.statusCode, describeRequest(response)).to.equal(statusCode);
    const payload = JSON.parse(response.payload);
    expect(payload).to.contain({ statusCode, code });
    expect(payload.error).to.be.a.string();
    expect(payload.message).to.be.a.string().and.to.not.be.empty();
    return payload;
}
