/** The auth schemes a route group of gateway.yaml may name; gateway/index.ts implements each. */
export const authSchemeNames = ['api-key'] as const;

export type AuthSchemeName = typeof authSchemeNames[number];
