/* The SDK of the desktop client: what another program imports to talk to a Family Records service as this client does. */
export const clientId = 'family-records-desktop';
