import IpAddr from 'ipaddr.js';

export type IpAddress = IpAddr.IPv4 | IpAddr.IPv6;

type IpRange = [IpAddress, number];

/**
 * One address as a proxy writes it: dotted-quad IPv4 or IPv6, nothing else (no port, no brackets, no legacy
 * form such as 0x7f.1 or 010.0.0.1, which other software reads as another address). An IPv4-mapped IPv6
 * address is taken as the IPv4 address it carries, so a client has one address whichever way it came.
 */
export function parseIpAddress(text: string): IpAddress | undefined {

    if (!IpAddr.IPv4.isValidFourPartDecimal(text) && !IpAddr.IPv6.isValid(text)) {
        return undefined;
    }

    return IpAddr.process(text);
}

/** An address (a range of one) or a CIDR range, as TRUSTED_PROXIES lists them. */
function parseIpRange(entry: string): IpRange | undefined {

    if (!entry.includes('/')) {
        const address = parseIpAddress(entry);
        return address && [address, address.kind() === 'ipv4' ? 32 : 128];
    }

    if (!IpAddr.IPv4.isValidCIDRFourPartDecimal(entry) && !IpAddr.IPv6.isValidCIDR(entry)) {
        return undefined;
    }

    const [address, prefix] = IpAddr.parseCIDR(entry);
    // Mapped addresses are read as IPv4 (parseIpAddress), so a mapped range must be one of IPv4 to match them.
    if (address instanceof IpAddr.IPv6 && address.isIPv4MappedAddress() && prefix >= 96) {
        return [address.toIPv4Address(), prefix - 96];
    }

    return [address, prefix];
}

/** The entries of a TRUSTED_PROXIES value: comma-separated, spaces around them ignored; blank is none. */
export function trustedProxyEntries(value: string): string[] {

    return value.trim() === '' ? [] : value.split(',').map((entry) => entry.trim());
}

/** What is wrong with one entry of TRUSTED_PROXIES, in words for the start-up error; undefined when nothing is. */
export function trustedProxyProblem(entry: string): string | undefined {

    if (entry === '') {
        return 'has an empty entry';
    }

    return parseIpRange(entry) ? undefined : `has "${entry}", which is neither an IP address nor a CIDR range`;
}

/** The proxies whose X-Forwarded-For is believed (TRUSTED_PROXIES), parsed once. */
export class TrustedProxies {

    private readonly ranges: IpRange[];

    constructor(entries: readonly string[]) {

        this.ranges = entries.map((entry) => {

            const range = parseIpRange(entry);
            if (!range) {
                throw new Error(`TRUSTED_PROXIES ${trustedProxyProblem(entry)}`);
            }

            return range;
        });
    }

    /** Whether anyone is trusted at all: with nobody, X-Forwarded-For need not even be read. */
    get none(): boolean {

        return this.ranges.length === 0;
    }

    includes(address: IpAddress): boolean {

        return this.ranges.some((range) => range[0].kind() === address.kind() && address.match(range));
    }
}
