import type { ErrorCode } from '../../lib/errors';

/*
 * What each stable error code means, for the Error schema and the reference page.
 * Keyed by ErrorCode, so a code added to lib/errors.ts does not compile until it is
 * described here.
 */
export const errorCodes: Readonly<Record<ErrorCode, { status: number; when: string }>> = {
    invalid_key: { status: 401, when: 'Missing, malformed, unknown or revoked API key (with WWW-Authenticate: Bearer).' },
    plan_not_eligible: { status: 403, when: 'The family\'s plan has no API access (Lite).' },
    api_not_enabled: { status: 403, when: 'A family manager has not enabled the API.' },
    family_suspended: { status: 403, when: 'A super-admin suspended the family\'s API.' },
    resource_scope: { status: 403, when: 'The resource is outside the key\'s resource scopes.' },
    operation_scope: { status: 403, when: 'The request needs an operation outside the key\'s operation scopes.' },
    living_person_protected: { status: 403, when: 'The key reads living persons redacted (`living_persons: redacted`), so it cannot change or delete a record that concerns a person presumed living, nor name one in `person_id`, `parent_1_id`, `parent_2_id` or `spouse_id`.' },
    not_found: { status: 404, when: 'Unknown id, or a record of another family (never which).' },
    invalid_request: { status: 400, when: 'Bad query, body, field, sort key, filter, format or cursor; the message names the problem.' },
    too_large: { status: 413, when: 'The body is larger than the route accepts.' },
    unsupported_media_type: { status: 415, when: 'The body is not of a type the route accepts.' },
    rate_limited: { status: 429, when: 'Over the plan\'s rate limit (with Retry-After and RateLimit headers).' },
    quota_exceeded: { status: 413, when: 'The upload would take the family over its plan\'s storage quota.' },
    invalid_signature: { status: 403, when: 'A signed file URL was altered.' },
    url_expired: { status: 403, when: 'A signed file URL is past its expiry: ask the API for a fresh one.' },
    range_not_satisfiable: { status: 416, when: 'The Range asks for no byte of the file (with Content-Range: bytes */<size>).' },
    precondition_failed: { status: 412, when: 'If-Match does not name the record\'s current ETag, or it changed after If-Unmodified-Since: someone changed it since you read it, and nothing was written. Read it again and reapply your change.' },
    precondition_required: { status: 428, when: 'The request changes a record only when told which revision was seen: send If-Match with the ETag (or `"` + `revision` + `"`) you read.' },
    idempotency_key_reused: { status: 422, when: 'The Idempotency-Key was used by this API key for another request (another path or body) in the last 24 hours.' },
    invalid_token: { status: 401, when: 'Missing, malformed, unknown, expired or revoked device access token (with WWW-Authenticate: Bearer error="invalid_token"): refresh it, or connect the device again.' },
    account_disabled: { status: 403, when: 'The user the device token speaks for is disabled.' },
    messaging_suspended: { status: 403, when: 'A super-admin suspended the messaging of the user\'s family.' },
    token_scope: { status: 403, when: 'The device token lacks the scope the route needs.' },
    blocked: { status: 403, when: 'A block stands between the two people of a direct conversation: neither may start it or write in it.' },
    checksum_mismatch: { status: 460, when: 'A resumable upload\'s body does not match its Upload-Checksum (tus checksum extension): nothing of it was kept; send it again from the same Upload-Offset.' },
    upload_expired: { status: 410, when: 'The resumable upload was not finished before its Upload-Expires: upload the file again.' },
    upload_incomplete: { status: 409, when: 'A message names an upload that has not received all its bytes: finish it first.' },
    attachment_policy: { status: 422, when: 'The family\'s plan does not allow this attachment (its type, by content) now: the policy may have changed since the upload.' },
    unauthorized: { status: 401, when: 'Hosted site: not signed in.' },
    forbidden: { status: 403, when: 'Hosted site: signed in without the role.' },
    conflict: { status: 409, when: 'The change conflicts with the current state.' },
    method_not_allowed: { status: 405, when: 'The path does not take this method (with an Allow header naming those it takes).' },
    not_acceptable: { status: 406, when: 'The Accept header names no format the list answers in (the message lists those it does, each with its `format=`); `format=` wins over Accept.' },
    service_unavailable: { status: 503, when: 'The service\'s database is not answering just now (or, for a new change stream, Redis): retry after the seconds of Retry-After, backing off if it happens again (a create with the same Idempotency-Key, so that it is made once).' },
    internal_error: { status: 500, when: 'An unexpected failure; the details are logged, never shown: the message names the request id (`X-Request-Id`) to quote.' }
};

/** The errors each gateway policy answers; a policy missing here stops the reference from being built. */
export const policyErrors: Readonly<Record<string, readonly ErrorCode[]>> = {
    'plan-gate': ['plan_not_eligible', 'api_not_enabled'],
    'family-suspension': ['family_suspended'],
    'rate-limit': ['rate_limited'],
    'resource-scope': ['resource_scope'],
    'operation-scope': ['operation_scope'],
    'account-state': ['account_disabled', 'family_suspended', 'messaging_suspended'],
    'token-scope': ['token_scope']
};
