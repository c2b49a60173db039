import type { MessagingPolicy } from './policy';

export const deviceCodeGrantType = 'urn:ietf:params:oauth:grant-type:device_code';

/** The endpoints' paths, declared once: the routes and the metadata derive from them. */
export const oauthPaths = {
    metadata: '/.well-known/oauth-authorization-server',
    deviceAuthorization: '/oauth/device/code',
    token: '/oauth/token',
    revocation: '/oauth/revoke',
    /** The page where a user enters the code (the site's). */
    verification: '/device'
} as const;

/** RFC 8414 authorization server metadata: what an OAuth library discovers. */
export function authorizationServerMetadata(publicBaseUrl: string, policy: MessagingPolicy) {

    return {
        issuer: publicBaseUrl,
        device_authorization_endpoint: `${publicBaseUrl}${oauthPaths.deviceAuthorization}`,
        token_endpoint: `${publicBaseUrl}${oauthPaths.token}`,
        revocation_endpoint: `${publicBaseUrl}${oauthPaths.revocation}`,
        grant_types_supported: [deviceCodeGrantType, 'refresh_token'],
        response_types_supported: [],
        // Public clients only: a desktop application can keep no secret.
        token_endpoint_auth_methods_supported: ['none'],
        revocation_endpoint_auth_methods_supported: ['none'],
        scopes_supported: policy.scopes.map((scope) => scope.name)
    };
}
