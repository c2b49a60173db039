import type { ReqRef, ReqRefDefaults, Request, Server } from '@hapi/hapi';

import { parseIpAddress, type TrustedProxies } from './trusted-proxies';

declare module '@hapi/hapi' {
    interface Request<Refs extends ReqRef = ReqRefDefaults> {
        /** The address of the client the request comes from (see resolveClientAddress); worked out once. */
        clientAddress(): string;
    }
}

/**
 * The address of a request's client. The socket's peer, unless that is a trusted proxy: then X-Forwarded-For
 * is read from the right (each proxy appends the address it was reached from), past every trusted proxy, to the
 * first address that is not one. What lies further left was written by the client or by hops nobody vouches
 * for, so it is never believed. When every hop is trusted, the leftmost is the client. An entry that is not an
 * address ends the walk at the last hop before it, which a trusted proxy named.
 */
export function resolveClientAddress(socketAddress: string, forwardedFor: string | string[] | undefined, trusted: TrustedProxies): string {

    // A socket closed meanwhile has no address (and server.inject takes any text): kept as it was, never believed.
    let client = parseIpAddress(socketAddress ?? '');
    if (!client) {
        return socketAddress;
    }

    const hops = trusted.none || forwardedFor === undefined ? [] : [forwardedFor].flat().join(',').split(',');
    for (let hop = hops.length - 1; hop >= 0 && trusted.includes(client); --hop) {
        const address = parseIpAddress(hops[hop].trim());
        if (!address) {
            break;
        }

        client = address;
    }

    return client.toString();
}

/** Decorates every request with clientAddress(), resolved on first use: most requests (the API's) never ask. */
export function decorateClientAddress(server: Server, trusted: TrustedProxies): void {

    const resolved = new WeakMap<Request, string>();
    server.decorate('request', 'clientAddress', function (this: Request): string {

        let address = resolved.get(this);
        if (address === undefined) {
            address = resolveClientAddress(this.info.remoteAddress, this.headers['x-forwarded-for'] as string | string[] | undefined, trusted);
            resolved.set(this, address);
        }

        return address;
    });
}
