/** No usable profile: none was connected, or it was disconnected (its keys are gone). */
export class NotConnectedError extends Error {

    constructor(message = 'This computer is not connected to a Family Records account: run `family-records-desktop connect <server-url>` first.') {

        super(message);
        this.name = 'NotConnectedError';
    }
}
