import Net from 'net';

import type { WebhooksPolicy } from './policy';
import { hasMoreCharactersThan } from '../../lib/text-length';
import { textLimits } from '../../lib/text-limits';
import { addressRefusal } from './address-rules';
import type { Resolver } from './resolver';
import { ambiguousUrlForm } from './url-forms';

type DestinationRules = WebhooksPolicy['destinations'];

/** A webhook URL the destination rules refuse; the message says why, in words. */
export class DestinationRefused extends Error {
    constructor(message: string) {

        super(message);
        this.name = 'DestinationRefused';
    }
}

/** Where one delivery goes: the request connects to one of `addresses` and nowhere else. */
export interface CheckedDestination {
    url: URL;
    /** Every address the host resolved to, each of which passed the check, in the order to try them (inConnectionOrder). */
    addresses: string[];
    port: number;
    /** The host name for TLS (SNI and the certificate check); absent when the URL names an address. */
    servername?: string;
}

/**
 * The rules that need no resolving, on the URL as the WHATWG parser normalises it
 * (so `https://2130706433/`, `https://0x7f.1/` and `https://017700000001/` all become
 * 127.0.0.1, and `[::ffff:127.0.0.1]` becomes `[::ffff:7f00:1]`, before any check),
 * after refusing the forms other parsers read differently (url-forms.ts). An endpoint
 * stores the URL's normalised form (`href`), the one that was checked.
 */
export function parseWebhookUrl(text: string, rules: DestinationRules): URL {

    let url: URL;
    try {
        url = new URL(text);
    }
    catch {
        throw new DestinationRefused(`"${text}" is not a URL.`);
    }

    if (hasMoreCharactersThan(text, textLimits.webhookUrl)) {
        throw new DestinationRefused(`The URL is longer than ${textLimits.webhookUrl} characters.`);
    }

    // What is kept is the serialisation, where every character beyond ASCII is three to twelve.
    if (hasMoreCharactersThan(url.href, textLimits.webhookUrl)) {
        throw new DestinationRefused(`The URL is longer than ${textLimits.webhookUrl} characters once its characters beyond ASCII are percent-encoded, as it is kept.`);
    }

    const ambiguity = ambiguousUrlForm(text);
    if (ambiguity) {
        throw new DestinationRefused(ambiguity);
    }

    const scheme = url.protocol.slice(0, -1);
    if (!rules.schemes.includes(scheme)) {
        throw new DestinationRefused(`The URL must use ${rules.schemes.join(' or ')}, not ${scheme}.`);
    }

    if (url.username || url.password) {
        throw new DestinationRefused('The URL must not contain a user name or password.');
    }

    const port = portOf(url);
    if (!rules.ports.includes(port)) {
        throw new DestinationRefused(`The URL must use port ${rules.ports.join(' or ')}, not ${port}.`);
    }

    const host = hostOf(url);
    if (host.endsWith('.')) {
        // A trailing dot makes a different name for the same host, slipping past name rules.
        throw new DestinationRefused(`Write the host without the final dot: "${host.slice(0, -1)}".`);
    }

    const blocked = rules.blocked_hosts.find((name) => host === name || host.endsWith(`.${name}`));
    if (blocked) {
        throw new DestinationRefused(`The host ${host} is not allowed (${blocked} and every name under it are refused).`);
    }

    return url;
}

/** The URL's port, 443 when it names none (https is the only scheme policies allow). */
function portOf(url: URL): number {

    return url.port ? Number(url.port) : 443;
}

/** The host without IPv6 brackets. */
function hostOf(url: URL): string {

    return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/**
 * The addresses in the order to try them (RFC 8305 §4): the resolver's order, but with the families taking
 * turns, the first address's family first, so a path broken for one family costs one address's turn, not all.
 */
function inConnectionOrder(addresses: readonly string[]): string[] {

    const unique = [...new Set(addresses)];
    const firstFamily = Net.isIP(unique[0]);
    const preferred = unique.filter((address) => Net.isIP(address) === firstFamily);
    const other = unique.filter((address) => Net.isIP(address) !== firstFamily);
    const ordered: string[] = [];
    for (let turn = 0; turn < Math.max(preferred.length, other.length); ++turn) {
        ordered.push(...preferred.slice(turn, turn + 1), ...other.slice(turn, turn + 1));
    }

    return ordered;
}

/**
 * The whole check, when an endpoint is saved and before every delivery: the URL rules,
 * then the host resolved and every address it resolves to checked (one bad address
 * refuses the host, even beside public ones: another resolution could pick it, and a
 * rebinding DNS server mixes them). The caller connects to the returned addresses only,
 * so a DNS answer that changes afterwards (rebinding) is never used.
 */
export async function checkDestination(text: string, rules: DestinationRules, resolve: Resolver): Promise<CheckedDestination> {

    const url = parseWebhookUrl(text, rules);
    const host = hostOf(url);
    const port = portOf(url);
    const isAddress = Net.isIP(host) !== 0;

    let addresses: string[];
    if (isAddress) {
        addresses = [host];
    }
    else {
        try {
            addresses = (await resolve(host)).map((resolved) => resolved.address);
        }
        catch (error) {
            throw new DestinationRefused(`The host ${host} does not resolve (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`);
        }

        if (addresses.length === 0) {
            throw new DestinationRefused(`The host ${host} does not resolve to any address.`);
        }
    }

    for (const address of addresses) {
        const refusal = addressRefusal(address, rules);
        if (refusal) {
            throw new DestinationRefused(isAddress ? `The URL names ${refusal}.` : `The host ${host} resolves to ${refusal}.`);
        }
    }

    return { url, addresses: inConnectionOrder(addresses), port, ...(isAddress ? {} : { servername: host }) };
}
