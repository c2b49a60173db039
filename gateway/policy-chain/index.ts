import { accountState } from './account-state';
import type { GatewayPolicy } from './context';
import { familySuspension } from './family-suspension';
import { planGate } from './plan-gate';
import { rateLimit } from './rate-limit';
import { operationScope, resourceScope } from './scopes';
import { tokenScope } from './token-scope';

/** The policies gateway.yaml may name, by name. */
export const gatewayPolicies: Readonly<Record<string, GatewayPolicy>> = {
    'plan-gate': planGate,
    'family-suspension': familySuspension,
    'rate-limit': rateLimit as GatewayPolicy,
    'resource-scope': resourceScope,
    'operation-scope': operationScope,
    'account-state': accountState,
    'token-scope': tokenScope
};

export type { GatewayPolicy, PolicyContext } from './context';
