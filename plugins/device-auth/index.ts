import type { Plugin, Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';

import type { RateLimitStore } from '../../gateway/rate-limit/types';
import type { AccountsContext } from '../../lib/accounts/context';
import { exchangeDeviceCode, refreshDeviceTokens, requestDeviceAuthorization, revokeDeviceToken, type TokenAnswer } from '../../lib/accounts/device-flow';
import { OAuthError } from '../../lib/accounts/oauth-error';
import { withBodyChecks } from '../../lib/request-bodies';
import { limitByAddress } from './endpoint-rate-limit';
import { authorizationServerMetadata, deviceCodeGrantType, oauthPaths } from './metadata';
import { answerAsOAuth, oauthAnswer, oauthHandler } from './oauth-answers';

export interface DeviceAuthOptions {
    accounts: AccountsContext;
    rateLimits: RateLimitStore;
    publicBaseUrl: string;
}

const optionsSchema = Joi.object<DeviceAuthOptions, true>({
    accounts: Joi.object().required(),
    rateLimits: Joi.object().required(),
    publicBaseUrl: Joi.string().uri({ scheme: ['http', 'https'] }).required()
});

/** One value per parameter (RFC 6749 §3.2: none may be sent twice); parameters it does not know are ignored (§3.1). */
const parameter = Joi.string().max(4096);
const form = (keys: Record<string, Joi.StringSchema>) => Joi.object(keys).unknown(true);

type Form = Record<string, string | undefined>;

/**
 * The OAuth 2.0 authorization server of connected devices: RFC 8414 metadata, the device authorization
 * endpoint (RFC 8628), the token endpoint (device code and refresh grants) and revocation (RFC 7009).
 * Outside every gateway route group: the client has no token yet. Forms in, JSON out.
 */
export const deviceAuthPlugin: Plugin<DeviceAuthOptions> = {
    name: 'device-auth',
    register(server, options) {

        const { accounts, rateLimits, publicBaseUrl } = Joi.attempt(options, optionsSchema);
        const endpoint = (path: string, validate: Joi.ObjectSchema, work: (form: Form, request: Request, h: ResponseToolkit) => Promise<object | null>): ServerRoute => ({
            method: 'POST',
            path,
            options: {
                auth: false,
                payload: { allow: 'application/x-www-form-urlencoded', maxBytes: 16_384 },
                validate: { payload: validate },
                ext: {
                    onPreAuth: { method: limitByAddress(rateLimits, accounts.policies) },
                    onPreResponse: { method: answerAsOAuth }
                }
            },
            handler: oauthHandler(async (request, h) => oauthAnswer(h, await work(request.payload as Form, request, h)))
        });

        const grants = new Map<string, (body: Form, request: Request) => Promise<TokenAnswer>>([
            [deviceCodeGrantType, (body) => exchangeDeviceCode(accounts, { clientId: body.client_id, deviceCode: body.device_code })],
            ['refresh_token', (body, request) => {

                return refreshDeviceTokens(accounts, { clientId: body.client_id, refreshToken: body.refresh_token, scope: body.scope, from: request.clientAddress() });
            }]
        ]);

        server.route({
            method: 'GET',
            path: oauthPaths.metadata,
            options: { auth: false, description: 'OAuth 2.0 authorization server metadata (RFC 8414)' },
            handler: (_request, h) => oauthAnswer(h, authorizationServerMetadata(publicBaseUrl, accounts.policies().messaging))
        });

        server.route(withBodyChecks([
            endpoint(oauthPaths.deviceAuthorization, form({ client_id: parameter, scope: parameter, device_name: parameter }), async (body, request) => {

                const asked = { clientId: body.client_id, scope: body.scope, deviceName: body.device_name, from: request.clientAddress() };
                const started = await requestDeviceAuthorization(accounts, asked);
                const verificationUri = `${publicBaseUrl}${oauthPaths.verification}`;
                return {
                    device_code: started.deviceCode,
                    user_code: started.userCode,
                    verification_uri: verificationUri,
                    verification_uri_complete: `${verificationUri}?user_code=${started.userCode}`,
                    expires_in: started.expiresIn,
                    interval: started.interval
                };
            }),
            endpoint(oauthPaths.token, form({ grant_type: parameter, client_id: parameter, device_code: parameter, refresh_token: parameter, scope: parameter }), (body, req) => {

                const grant = body.grant_type === undefined ? undefined : grants.get(body.grant_type);
                if (!grant) {
                    throw body.grant_type === undefined
                        ? new OAuthError('invalid_request', 'Missing grant_type.')
                        : new OAuthError('unsupported_grant_type', `This server takes grant_type ${[...grants.keys()].join(' or ')}.`);
                }

                return grant(body, req);
            }),
            endpoint(oauthPaths.revocation, form({ client_id: parameter, token: parameter, token_type_hint: parameter }), async (body) => {

                await revokeDeviceToken(accounts, { clientId: body.client_id, token: body.token });
                return null;
            })
        ]));
    }
};
