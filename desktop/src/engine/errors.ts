import { ApiError } from '../sdk/errors';

/** No usable profile: none was connected, or it was disconnected (its keys are gone). */
export class NotConnectedError extends Error {

    constructor(message = 'This computer is not connected to a Family Records account: run `family-records-desktop connect <server-url>` first.') {

        super(message);
        this.name = 'NotConnectedError';
    }
}


/** The codes of an account that cannot use messaging now (the user disabled, the family or its messaging suspended). */
const accountRefusalCodes = new Set(['account_disabled', 'family_suspended', 'messaging_suspended']);

/**
 * Whether the service refused the account as a whole: every route but the outbox answers so, and the outbox keeps what
 * such an account sends as conflicts, so that nothing written offline is lost. Takes an error or a stream's closing code.
 */
export function isAccountRefusal(errorOrCode: unknown): boolean {

    const code = typeof errorOrCode === 'string' ? errorOrCode : errorOrCode instanceof ApiError ? errorOrCode.code : undefined;
    return code !== undefined && accountRefusalCodes.has(code);
}
