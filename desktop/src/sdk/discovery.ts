import { httpFetch, jsonOf } from './http';

/** What GET /.well-known/oauth-authorization-server (RFC 8414) names. */
export interface ServerMetadata {
    issuer: string;
    device_authorization_endpoint: string;
    token_endpoint: string;
    revocation_endpoint: string;
    grant_types_supported: string[];
    scopes_supported: string[];
}

const loopbackHosts = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/;

/**
 * The service's address as the client keeps it: its origin and path, without a trailing slash. A bare host name
 * means https. Plain http only reaches this machine (loopback) unless `allowInsecure`: tokens must not cross a
 * network in clear.
 */
export function normalizeServerUrl(input: string, options: { allowInsecure?: boolean } = {}): string {

    const text = input.trim();
    if (!text) {
        throw new Error('The server URL is empty: give the address of the Family Records service, e.g. https://records.example.com');
    }

    let url: URL;
    try {
        url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`);
    }
    catch {
        throw new Error(`"${input}" is not a URL: give the address of the Family Records service, e.g. https://records.example.com`);
    }

    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
        throw new Error(`"${input}" is not an http(s) address: the service is reached over https`);
    }

    if (url.username || url.password) {
        throw new Error(`"${input}" holds a user name or password: give the service's address only`);
    }

    if (url.search || url.hash) {
        throw new Error(`"${input}" has a query or fragment: give the service's address only`);
    }

    if (url.protocol === 'http:' && !loopbackHosts.test(url.hostname) && !options.allowInsecure) {
        throw new Error(`"${input}" is plain http: use https, or allow an insecure connection explicitly (tokens would travel unencrypted)`);
    }

    return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** The service's OAuth metadata; its issuer must be the address given (a normalized one), as RFC 8414 §3.3 asks. */
export async function discover(serverUrl: string): Promise<ServerMetadata> {

    const url = `${serverUrl}/.well-known/oauth-authorization-server`;
    const response = await httpFetch(url, { headers: { accept: 'application/json' } });
    const metadata = await jsonOf(response) as Partial<ServerMetadata> | undefined;
    if (!response.ok || typeof metadata?.token_endpoint !== 'string' || typeof metadata.device_authorization_endpoint !== 'string') {
        throw new Error(`${serverUrl} is not a Family Records service: ${url} answered ${response.status} without OAuth metadata`);
    }

    if (metadata.issuer !== serverUrl) {
        throw new Error(`${serverUrl} names another issuer (${metadata.issuer}): connect to the address the service calls itself`);
    }

    return metadata as ServerMetadata;
}
