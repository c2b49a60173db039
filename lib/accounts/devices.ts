import Crypto from 'crypto';
import { Op, type WhereOptions } from 'sequelize';

import type { DeviceGrant } from '../../models/device-grant';
import type { DeviceRequest } from '../../models/device-request';
import type { User } from '../../models/user';
import { ServiceError } from '../errors';
import { recordId } from '../ids';
import type { AccountsContext } from './context';
import { deviceClient } from './messaging-policy';

/*
 * Devices connected through the browser (OAuth 2.0 device authorization grant, RFC 8628): what the
 * /device page shows and decides, and the grants users and operators list and revoke. The requests
 * themselves and the tokens are device-flow.ts's.
 */

/** A device authorization request, as the /device page shows it. */
export interface DeviceRequestView {
    /** Shown form, `BCDF-GHJK`. */
    userCode: string;
    clientId: string;
    clientName: string;
    /** As the client sent it: untrusted text. */
    deviceName: string;
    /** Plain words from policies/messaging.yaml. */
    scopes: { scope: string; description: string }[];
    requestedAt: Date;
    /** The client's address. */
    requestedFrom: string;
    expiresAt: Date;
    status: 'pending' | 'approved' | 'denied' | 'expired';
}

/** A connected device. */
export interface DeviceGrantView {
    /** `dev_…` */
    id: string;
    userId: string;
    userEmail: string;
    familyLongId: string;
    clientId: string;
    clientName: string;
    deviceName: string;
    scopes: string[];
    approvedAt: Date;
    lastUsedAt: Date | null;
    lastUsedFrom: string | null;
    revokedAt: Date | null;
}

/** The letters of user codes: no vowels (no words), none easily mistaken for another. */
export const userCodeAlphabet = 'BCDFGHJKLMNPQRSTVWXZ';
const userCodeLength = 8;
const userCodePattern = new RegExp(`^[${userCodeAlphabet}]{${userCodeLength}}$`);

/** A new user code, as stored: 8 letters, about 34 bits. */
export function generateUserCode(): string {

    let code = '';
    while (code.length < userCodeLength) {
        code += userCodeAlphabet[Crypto.randomInt(userCodeAlphabet.length)];
    }

    return code;
}

/** The stored form of a code as a user typed it (case, dashes and spaces ignored); undefined when it is not 8 letters of the alphabet. */
export function normalizeUserCode(entered: string): string | undefined {

    const letters = entered.replace(/[\s-]/g, '').toUpperCase();
    return userCodePattern.test(letters) ? letters : undefined;
}

/** How a user code is shown: `BCDF-GHJK`. */
export function shownUserCode(code: string): string {

    return `${code.slice(0, 4)}-${code.slice(4)}`;
}

function clientName(context: AccountsContext, clientId: string): string {

    return deviceClient(context.policies().messaging, clientId)?.display_name ?? clientId;
}

function requestView(context: AccountsContext, request: DeviceRequest, now = new Date()): DeviceRequestView {

    const descriptions = new Map(context.policies().messaging.scopes.map((scope) => [scope.name, scope.description]));
    return {
        userCode: shownUserCode(request.user_code),
        clientId: request.client_id,
        clientName: clientName(context, request.client_id),
        deviceName: request.device_name,
        scopes: request.scopes.map((scope) => ({ scope, description: descriptions.get(scope) ?? scope })),
        requestedAt: request.created_at,
        requestedFrom: request.requested_from,
        expiresAt: request.expires_at,
        status: request.status === 'pending' && request.expires_at <= now ? 'expired' : request.status
    };
}

async function grantViews(context: AccountsContext, grants: DeviceGrant[]): Promise<DeviceGrantView[]> {

    const userIds = [...new Set(grants.map((grant) => grant.user_id))];
    const users = userIds.length ? await context.models.User.findAll({ where: { id: userIds }, attributes: ['id', 'email'] }) : [];
    const emails = new Map(users.map((user) => [user.id, user.email]));
    return grants.map((grant) => ({
        id: grant.id,
        userId: grant.user_id,
        userEmail: emails.get(grant.user_id) ?? '',
        familyLongId: grant.family_long_id,
        clientId: grant.client_id,
        clientName: clientName(context, grant.client_id),
        deviceName: grant.device_name,
        scopes: grant.scopes,
        approvedAt: grant.approved_at,
        lastUsedAt: grant.last_used_at ?? null,
        lastUsedFrom: grant.last_used_from ?? null,
        revokedAt: grant.revoked_at ?? null
    }));
}

/** The request a user code names, whatever its state; undefined for a code that is malformed or names none. */
export async function findDeviceRequest(context: AccountsContext, userCode: string): Promise<DeviceRequestView | undefined> {

    const code = normalizeUserCode(userCode);
    const request = code === undefined ? null : await context.models.DeviceRequest.findOne({ where: { user_code: code } });
    return request ? requestView(context, request) : undefined;
}

/** The request of a user code that is still pending, or the refusal saying why it is not. */
async function pendingRequest(context: AccountsContext, userCode: string): Promise<DeviceRequest> {

    const code = normalizeUserCode(userCode);
    const request = code === undefined ? null : await context.models.DeviceRequest.findOne({ where: { user_code: code } });
    if (!request) {
        throw new ServiceError('not_found', 'No device is waiting for this code: check it against the one the device shows.', 404);
    }

    return checkedPending(context, request);
}

function checkedPending(context: AccountsContext, request: DeviceRequest): DeviceRequest {

    const status = requestView(context, request).status;
    if (status === 'expired') {
        throw new ServiceError('conflict', 'This code has expired: start connecting again on the device, and enter the new code it shows.', 409);
    }

    if (status !== 'pending') {
        throw new ServiceError('conflict', `This code was ${status} already.`, 409);
    }

    return request;
}

/** Who may connect a device: an enabled user of a family whose access and messaging are not suspended. */
async function checkMayApprove(context: AccountsContext, user: User): Promise<string> {

    if (user.disabled_at) {
        throw new ServiceError('account_disabled', 'This account is disabled: it cannot connect devices.', 403);
    }

    const family = user.family_long_id ? await context.models.Family.findByPk(user.family_long_id) : null;
    if (!family) {
        throw new ServiceError('forbidden', 'Only a member of a family can connect a device: this account belongs to none.', 403);
    }

    if (family.api_suspended_at) {
        throw new ServiceError('family_suspended', 'This family\'s access is suspended: no device can be connected until it is lifted.', 403);
    }

    if (family.messaging_suspended_at) {
        throw new ServiceError('messaging_suspended', 'This family\'s messaging is suspended: no device can be connected until it is restored.', 403);
    }

    return family.family_long_id;
}

/**
 * Approves the request of a user code for `user`: the device then acts as them, in their family, within
 * the scopes it asked for. Refused when the code is not pending (expired, or decided already), and for a
 * disabled user or one of a suspended family.
 */
export async function approveDeviceRequest(context: AccountsContext, userCode: string, user: User): Promise<DeviceGrantView> {

    const request = await pendingRequest(context, userCode);
    const familyLongId = await checkMayApprove(context, user);
    const policy = context.policies().messaging;
    const now = new Date();
    const day = 86_400_000;
    const grant = await context.transaction(async (transaction) => {

        // Conditional: of two decisions at once, only the first counts.
        const [decided] = await context.models.DeviceRequest.update({ status: 'approved', user_id: user.id, decided_at: now, grant_id: recordId('dev') },
            { where: { id: request.id, status: 'pending', expires_at: { [Op.gt]: now } }, transaction });
        await request.reload({ transaction });
        if (decided === 0) {
            checkedPending(context, request);
        }

        const allowed = deviceClient(policy, request.client_id)?.scopes ?? [];
        return context.models.DeviceGrant.create({
            id: request.grant_id!,
            user_id: user.id,
            family_long_id: familyLongId,
            client_id: request.client_id,
            device_name: request.device_name,
            scopes: request.scopes.filter((scope) => allowed.includes(scope)),
            approved_at: now,
            expires_at: new Date(now.getTime() + policy.tokens.refresh_max_age_days * day),
            idle_expires_at: new Date(now.getTime() + policy.tokens.refresh_idle_days * day)
        }, { transaction });
    });

    const [view] = await grantViews(context, [grant]);
    return view;
}

/** Denies the request of a user code: the device's next poll is told access_denied. */
export async function denyDeviceRequest(context: AccountsContext, userCode: string, user: User): Promise<void> {

    const request = await pendingRequest(context, userCode);
    const now = new Date();
    const [decided] = await context.models.DeviceRequest.update({ status: 'denied', user_id: user.id, decided_at: now },
        { where: { id: request.id, status: 'pending', expires_at: { [Op.gt]: now } } });
    if (decided === 0) {
        checkedPending(context, await request.reload());
    }
}

/** The connected devices (not revoked, not expired) of a user or of a family, newest first. */
export async function listDeviceGrants(context: AccountsContext, where: { userId?: string; familyLongId?: string }): Promise<DeviceGrantView[]> {

    const now = new Date();
    const conditions: WhereOptions<DeviceGrant> = {
        revoked_at: null,
        expires_at: { [Op.gt]: now },
        idle_expires_at: { [Op.gt]: now },
        ...where.userId === undefined ? {} : { user_id: where.userId },
        ...where.familyLongId === undefined ? {} : { family_long_id: where.familyLongId }
    };
    const grants = await context.models.DeviceGrant.findAll({ where: conditions, order: [['approved_at', 'DESC'], ['id', 'DESC']] });
    return grantViews(context, grants);
}

/**
 * Disconnects a device for good: none of its tokens authenticates again, on any instance, from the next
 * request. A grant revoked already keeps when and by whom (`changed` false).
 */
export async function revokeDeviceGrant(context: AccountsContext, grantId: string, by: string): Promise<{ grant: DeviceGrantView; changed: boolean }> {

    const grant = await context.models.DeviceGrant.findByPk(grantId);
    if (!grant) {
        throw new ServiceError('not_found', `No connected device ${grantId}.`, 404);
    }

    // One conditional UPDATE: of two revocations at once, only the first is recorded.
    const [updated] = await context.models.DeviceGrant.update({ revoked_at: new Date(), revoked_by: by }, { where: { id: grant.id, revoked_at: null } });
    await grant.reload();
    // Even when nothing changed: doing it again is how an operator finishes a change whose epoch move Redis missed.
    await context.authEpoch.bump();

    const [view] = await grantViews(context, [grant]);
    return { grant: view, changed: updated > 0 };
}
