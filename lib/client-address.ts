import type { ReqRef, ReqRefDefaults, Request, Server } from '@hapi/hapi';
import IpAddr from 'ipaddr.js';

import { parseIpAddress, type IpAddress, type TrustedProxies } from './trusted-proxies';

declare module '@hapi/hapi' {
    // eslint-disable-next-line @typescript-eslint/no-unused-vars -- an augmentation repeats hapi's type parameters
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
 * address (see parseForwardedHop) ends the walk at the last hop before it, which a trusted proxy named.
 */
export function resolveClientAddress(socketAddress: string, forwardedFor: string | string[] | undefined, trusted: TrustedProxies): string {

    // A socket closed meanwhile has no address (and server.inject takes any text): kept as it was, never believed.
    let client = parseIpAddress(socketAddress ?? '');
    if (!client) {
        return socketAddress;
    }

    const hops = trusted.none || forwardedFor === undefined ? [] : [forwardedFor].flat().join(',').split(',');
    for (let hop = hops.length - 1; hop >= 0 && trusted.includes(client); --hop) {
        const address = parseForwardedHop(hops[hop].trim());
        if (!address) {
            break;
        }

        client = address;
    }

    return client.toString();
}

/**
 * One X-Forwarded-For entry: an address as parseIpAddress reads it, or with the port the client connected from, as
 * some proxies write it (Azure Application Gateway, IIS ARR): `203.0.113.7:51234`, `[2001:db8::7]:51234`, and an
 * IPv6 address in brackets without one, `[2001:db8::7]`. A bare IPv6 address is never split at a colon. Anything
 * else (`unknown`, an obfuscated `_name`, a host name, a port that is no port) is no address.
 */
function parseForwardedHop(entry: string): IpAddress | undefined {

    const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
    if (bracketed) {
        return IpAddr.IPv6.isValid(bracketed[1]) && isPort(bracketed[2]) ? parseIpAddress(bracketed[1]) : undefined;
    }

    const ipv4WithPort = /^([\d.]+):(\d+)$/.exec(entry);
    if (ipv4WithPort) {
        return isPort(ipv4WithPort[2]) ? parseIpAddress(ipv4WithPort[1]) : undefined;
    }

    return parseIpAddress(entry);
}

/** Whether a port written after an address is one (absent is fine): 0 to 65535, at most five digits. */
function isPort(digits: string | undefined): boolean {

    return digits === undefined || (digits.length <= 5 && Number(digits) <= 65535);
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
