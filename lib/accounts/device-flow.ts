import { Op, UniqueConstraintError, type Transaction } from 'sequelize';

import { generateDeviceTokenPair, hashDeviceToken, isWellFormedRefreshToken, successorPair, type DeviceTokenPair } from '../../gateway/device-token';
import type { DeviceGrant } from '../../models/device-grant';
import type { DeviceRequest } from '../../models/device-request';
import { deviceClient, type DeviceClientPolicy } from '../../plugins/device-auth/policy';
import { randomBase62, recordId } from '../ids';
import { hasMoreCharactersThan } from '../text-length';
import { textLimits } from '../text-limits';
import type { AccountsContext } from './context';
import { generateUserCode, shownUserCode } from './devices';
import { OAuthError } from './oauth-error';

/*
 * The client's side of the device authorization grant (RFC 8628): asking, polling, refreshing and revoking.
 * Refusals are OAuthErrors, which the /oauth endpoints answer as RFC 6749 JSON.
 */

/** What POST /oauth/device/code answers (RFC 8628 §3.2), before the verification URIs the plugin adds. */
export interface DeviceAuthorization {
    deviceCode: string;
    userCode: string;
    expiresIn: number;
    interval: number;
}

/** What POST /oauth/token answers (RFC 6749 §5.1). */
export interface TokenAnswer {
    access_token: string;
    token_type: 'Bearer';
    expires_in: number;
    refresh_token: string;
    scope: string;
}

// 43 base62 characters: about 256 bits, well past RFC 8628's 128.
const deviceCodeLength = 43;

/** The client of `clientId`, or invalid_client (RFC 6749 §5.2: 401 for a client that cannot be authenticated). */
export function knownClient(context: AccountsContext, clientId: string | undefined): DeviceClientPolicy {

    const client = clientId === undefined ? undefined : deviceClient(context.policies().messaging, clientId);
    if (!client) {
        throw new OAuthError('invalid_client', clientId === undefined ? 'Missing client_id.' : 'Unknown client_id.', 401);
    }

    return client;
}

function requestedScopes(client: DeviceClientPolicy, scope: string | undefined): string[] {

    if (scope === undefined || scope.trim() === '') {
        return client.default_scopes;
    }

    const scopes = [...new Set(scope.trim().split(/ +/))];
    const refused = scopes.filter((name) => !client.scopes.includes(name));
    if (refused.length > 0) {
        throw new OAuthError('invalid_scope', `This client may ask for ${client.scopes.join(', ')}; not: ${refused.join(', ')}.`);
    }

    return scopes;
}

/** A new device authorization request (POST /oauth/device/code). */
export async function requestDeviceAuthorization(context: AccountsContext,
    input: { clientId?: string; scope?: string; deviceName?: string; from: string }): Promise<DeviceAuthorization> {

    const client = knownClient(context, input.clientId);
    const scopes = requestedScopes(client, input.scope);
    const deviceName = (input.deviceName ?? '').trim() || client.display_name;
    if (hasMoreCharactersThan(deviceName, textLimits.deviceName)) {
        throw new OAuthError('invalid_request', `A device_name is at most ${textLimits.deviceName} characters.`);
    }

    const policy = context.policies().messaging.device_codes;
    // Cleaned up here, as sign-in cleans up sessions; a day on, so a late poll still hears expired_token.
    await context.models.DeviceRequest.destroy({ where: { expires_at: { [Op.lt]: new Date(Date.now() - 86_400_000) } } });
    const deviceCode = randomBase62(deviceCodeLength);
    for (let attempt = 1; ; ++attempt) {
        const userCode = generateUserCode();
        try {
            await context.models.DeviceRequest.create({
                id: recordId('dar'),
                device_code_hash: hashDeviceToken(deviceCode, context.deviceTokenKeys),
                user_code: userCode,
                client_id: client.name,
                device_name: deviceName,
                scopes,
                requested_from: input.from,
                expires_at: new Date(Date.now() + policy.lifetime_seconds * 1000),
                interval_seconds: policy.interval_seconds
            });
            return { deviceCode, userCode: shownUserCode(userCode), expiresIn: policy.lifetime_seconds, interval: policy.interval_seconds };
        }
        catch (error) {
            // A user code is short: one in use already (even an old request's) is drawn again.
            if (!(error instanceof UniqueConstraintError) || attempt === 5) {
                throw error;
            }
        }
    }
}

/** Saves a new pair of `grant` and answers it. */
async function issuePair(context: AccountsContext, grant: DeviceGrant, pair: DeviceTokenPair, now: Date,
    transaction: Transaction): Promise<{ answer: TokenAnswer; refreshHash: string }> {

    const policy = context.policies().messaging.tokens;
    const accessExpiresAt = new Date(now.getTime() + policy.access_minutes * 60_000);
    const refreshExpiresAt = new Date(Math.min(now.getTime() + policy.refresh_idle_days * 86_400_000, grant.expires_at.getTime()));
    const refreshHash = hashDeviceToken(pair.refreshToken, context.deviceTokenKeys);
    await context.models.DeviceToken.bulkCreate([
        { token_hash: hashDeviceToken(pair.accessToken, context.deviceTokenKeys), grant_id: grant.id, kind: 'access', expires_at: accessExpiresAt },
        { token_hash: refreshHash, grant_id: grant.id, kind: 'refresh', expires_at: refreshExpiresAt }
    ], { transaction });
    return { answer: tokenAnswer(grant, pair, accessExpiresAt, now), refreshHash };
}

function tokenAnswer(grant: DeviceGrant, pair: DeviceTokenPair, accessExpiresAt: Date, now: Date): TokenAnswer {

    return {
        access_token: pair.accessToken,
        token_type: 'Bearer',
        expires_in: Math.max(0, Math.floor((accessExpiresAt.getTime() - now.getTime()) / 1000)),
        refresh_token: pair.refreshToken,
        scope: grant.scopes.join(' ')
    };
}

/** A pending request polled: slow_down when too early (and the interval grows), authorization_pending otherwise. */
async function pollPending(context: AccountsContext, request: DeviceRequest, now: Date): Promise<never> {

    const early = request.last_polled_at !== null && now.getTime() - request.last_polled_at.getTime() < request.interval_seconds * 1000;
    const interval = request.interval_seconds + (early ? context.policies().messaging.device_codes.slow_down_seconds : 0);
    await context.models.DeviceRequest.update({ last_polled_at: now, interval_seconds: interval }, { where: { id: request.id } });
    if (early) {
        throw new OAuthError('slow_down', `Polled too early: wait at least ${interval} seconds between polls.`);
    }

    throw new OAuthError('authorization_pending', 'The user has not approved this device yet.');
}

/** The device code grant (POST /oauth/token, grant_type urn:ietf:params:oauth:grant-type:device_code). */
export async function exchangeDeviceCode(context: AccountsContext, input: { clientId?: string; deviceCode?: string }): Promise<TokenAnswer> {

    const client = knownClient(context, input.clientId);
    if (!input.deviceCode) {
        throw new OAuthError('invalid_request', 'Missing device_code.');
    }

    const request = await context.models.DeviceRequest.findOne({ where: { device_code_hash: hashDeviceToken(input.deviceCode, context.deviceTokenKeys) } });
    if (!request || request.client_id !== client.name) {
        throw new OAuthError('invalid_grant', 'Unknown device_code.');
    }

    const now = new Date();
    if (request.tokens_issued_at) {
        throw new OAuthError('invalid_grant', 'This device_code was exchanged already.');
    }

    if (request.expires_at <= now) {
        throw new OAuthError('expired_token', 'The device_code has expired: start again.');
    }

    if (request.status === 'denied') {
        throw new OAuthError('access_denied', 'The user denied this device.');
    }

    if (request.status === 'pending') {
        return pollPending(context, request, now);
    }

    return context.transaction(async (transaction) => {

        const where = { id: request.id, tokens_issued_at: null };
        const [taken] = await context.models.DeviceRequest.update({ tokens_issued_at: now, last_polled_at: now }, { where, transaction });
        const grant = await context.models.DeviceGrant.findByPk(request.grant_id!, { transaction });
        if (taken === 0 || !grant || grant.revoked_at) {
            throw new OAuthError('invalid_grant', taken === 0 ? 'This device_code was exchanged already.' : 'This device was disconnected.');
        }

        await grant.update({ last_used_at: now }, { transaction });
        return (await issuePair(context, grant, generateDeviceTokenPair(), now, transaction)).answer;
    });
}

/** Revokes a grant whose rotated refresh token came back: someone holds a copy (RFC 9700 §4.14.2). */
async function revokeOnReuse(context: AccountsContext, grant: DeviceGrant): Promise<never> {

    await context.models.DeviceGrant.update({ revoked_at: new Date(), revoked_by: 'reuse' }, { where: { id: grant.id, revoked_at: null } });
    await context.authEpoch.bump();
    throw new OAuthError('invalid_grant', 'This refresh token was used already: the device is disconnected, connect it again.');
}

/**
 * The answer for the refresh token just rotated, presented again within the grace: the same pair, derived
 * again. Undefined when it is not the grant's latest rotation or the grace is over.
 */
async function graceAnswer(context: AccountsContext, grant: DeviceGrant, refreshToken: string, rotatedAt: Date, now: Date): Promise<TokenAnswer | undefined> {

    const graceMs = context.policies().messaging.tokens.reuse_grace_seconds * 1000;
    if (now.getTime() - rotatedAt.getTime() > graceMs) {
        return undefined;
    }

    const pair = successorPair(refreshToken, context.deviceTokenKeys.rotation);
    const [access, successor] = await Promise.all([
        context.models.DeviceToken.findByPk(hashDeviceToken(pair.accessToken, context.deviceTokenKeys)),
        context.models.DeviceToken.findByPk(hashDeviceToken(pair.refreshToken, context.deviceTokenKeys))
    ]);
    if (!access || !successor || successor.rotated_at) {
        return undefined;
    }

    return tokenAnswer(grant, pair, access.expires_at, now);
}

/** The refresh grant (POST /oauth/token, grant_type refresh_token): a new pair, the token given spent. */
export async function refreshDeviceTokens(context: AccountsContext, input: { clientId?: string; refreshToken?: string; scope?: string; from: string }): Promise<TokenAnswer> {

    const client = knownClient(context, input.clientId);
    if (!input.refreshToken) {
        throw new OAuthError('invalid_request', 'Missing refresh_token.');
    }

    const invalid = () => new OAuthError('invalid_grant', 'Unknown, expired or revoked refresh token: connect the device again.');
    const hash = isWellFormedRefreshToken(input.refreshToken) ? hashDeviceToken(input.refreshToken, context.deviceTokenKeys) : undefined;
    const token = hash === undefined ? null : await context.models.DeviceToken.findByPk(hash);
    const grant = token?.kind === 'refresh' ? await context.models.DeviceGrant.findByPk(token.grant_id) : null;
    const now = new Date();
    if (!token || !grant || grant.client_id !== client.name || grant.revoked_at || grant.expires_at <= now) {
        throw invalid();
    }

    // RFC 6749 §6: a refresh may narrow the scopes, never widen them; the grant keeps its own.
    const narrowed = input.scope?.trim() ? input.scope.trim().split(/ +/) : [];
    if (narrowed.some((scope) => !grant.scopes.includes(scope))) {
        throw new OAuthError('invalid_scope', `This device was granted ${grant.scopes.join(', ')} only.`);
    }

    if (token.rotated_at) {
        return await graceAnswer(context, grant, input.refreshToken, token.rotated_at, now) ?? revokeOnReuse(context, grant);
    }

    if (token.expires_at <= now) {
        throw invalid();
    }

    const pair = successorPair(input.refreshToken, context.deviceTokenKeys.rotation);
    return context.transaction(async (transaction) => {

        // The successors first: a refresh running at once, whose conditional update waits for this one, then finds them.
        const issued = await issuePair(context, grant, pair, now, transaction);
        const where = { token_hash: hash!, rotated_at: null };
        const [rotated] = await context.models.DeviceToken.update({ rotated_at: now, successor_hash: issued.refreshHash }, { where, transaction });
        if (rotated === 0) {
            throw new OAuthError('invalid_grant', 'rotated meanwhile');
        }

        // Spent tokens are kept until they expire: a rotated refresh token presented again must still be recognised.
        await context.models.DeviceToken.destroy({ where: { grant_id: grant.id, expires_at: { [Op.lte]: now } }, transaction });
        const idleExpiresAt = new Date(now.getTime() + context.policies().messaging.tokens.refresh_idle_days * 86_400_000);
        await grant.update({ last_used_at: now, last_used_from: input.from, idle_expires_at: idleExpiresAt }, { transaction });
        return issued.answer;
    }).catch(async (error: unknown) => {

        // Another refresh with the same token won the race: this one is its twin, within the grace.
        const rotatedMeanwhile = await context.models.DeviceToken.findByPk(hash!);
        if (!(error instanceof OAuthError) && !(error instanceof UniqueConstraintError) || !rotatedMeanwhile?.rotated_at) {
            throw error;
        }

        return await graceAnswer(context, grant, input.refreshToken!, rotatedMeanwhile.rotated_at, now) ?? revokeOnReuse(context, grant);
    });
}

/**
 * POST /oauth/revoke (RFC 7009): an access or a refresh token disconnects its device, the whole grant.
 * A token that names nothing is no error (§2.2): the client's aim, that it no longer works, holds.
 */
export async function revokeDeviceToken(context: AccountsContext, input: { clientId?: string; token?: string }): Promise<void> {

    const client = knownClient(context, input.clientId);
    if (!input.token) {
        throw new OAuthError('invalid_request', 'Missing token.');
    }

    const token = await context.models.DeviceToken.findByPk(hashDeviceToken(input.token, context.deviceTokenKeys));
    const grant = token ? await context.models.DeviceGrant.findByPk(token.grant_id) : null;
    if (!grant) {
        return;
    }

    if (grant.client_id !== client.name) {
        throw new OAuthError('unauthorized_client', 'This token was issued to another client.');
    }

    const [updated] = await context.models.DeviceGrant.update({ revoked_at: new Date(), revoked_by: 'client' }, { where: { id: grant.id, revoked_at: null } });
    if (updated > 0) {
        await context.authEpoch.bump();
    }
}
