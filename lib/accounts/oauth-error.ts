/** The error codes of RFC 6749 §5.2, RFC 8628 §3.5 and RFC 7009 §2.2.1 the OAuth endpoints answer. */
export type OAuthErrorCode =
    | 'invalid_request' | 'invalid_client' | 'invalid_grant' | 'unauthorized_client' | 'unsupported_grant_type' | 'invalid_scope'
    | 'authorization_pending' | 'slow_down' | 'access_denied' | 'expired_token' | 'unsupported_token_type';

/** A refusal of an OAuth endpoint, answered as RFC 6749's JSON (`error`, `error_description`). */
export class OAuthError extends Error {
    constructor(readonly oauthError: OAuthErrorCode, description: string, readonly statusCode = 400) {

        super(description);
        this.name = 'OAuthError';
    }
}
