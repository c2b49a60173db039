import Dns from 'dns';

export interface ResolvedAddress {
    address: string;
    family: number;
}

/** Every address a host name resolves to; rejects when it does not resolve. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** The system resolver (what every other program on the machine would connect to), all addresses in its order. */
export const systemResolver: Resolver = (hostname) => Dns.promises.lookup(hostname, { all: true, verbatim: true });
