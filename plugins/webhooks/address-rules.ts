import IpAddr from 'ipaddr.js';

import type { WebhooksPolicy } from './policy';

type DestinationRules = WebhooksPolicy['destinations'];

/** How a refusal names the range an address lies in; ipaddr.js's own name otherwise. */
const rangeDescriptions: Readonly<Record<string, string>> = {
    unspecified: 'an unspecified address',
    broadcast: 'the broadcast address',
    loopback: 'a loopback address',
    private: 'a private address',
    linkLocal: 'a link-local address',
    carrierGradeNat: 'a carrier-grade NAT address',
    multicast: 'a multicast address',
    reserved: 'a reserved or documentation address',
    uniqueLocal: 'a unique-local address',
    ipv4Mapped: 'an IPv4-mapped IPv6 address',
    rfc6145: 'an IPv4-translated IPv6 address',
    rfc6052: 'a NAT64 address (IPv4 embedded in IPv6)',
    '6to4': 'a 6to4 address (IPv4 embedded in IPv6)',
    teredo: 'a Teredo address (IPv4 embedded in IPv6)'
};

/**
 * Why the destination rules refuse `address` (an IPv4 or IPv6 literal), or undefined
 * when they allow it: its range must be allowed and no blocked CIDR may hold it.
 */
export function addressRefusal(address: string, rules: DestinationRules): string | undefined {

    let parsed: IpAddr.IPv4 | IpAddr.IPv6;
    try {
        parsed = IpAddr.parse(address);
    }
    catch {
        return `${address} is not an IP address`;
    }

    const range = parsed.range();
    if (!rules.allowed_ranges.includes(range)) {
        return `${address}, ${rangeDescriptions[range] ?? `an address in the ${range} range`}, not a public one`;
    }

    for (const blocked of rules.blocked_cidrs) {
        const cidr = IpAddr.parseCIDR(blocked);
        if (cidr[0].kind() === parsed.kind() && parsed.match(cidr)) {
            return `${address}, an address in the refused range ${blocked}`;
        }
    }

    return undefined;
}
