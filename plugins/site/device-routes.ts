import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';

import { approveDeviceRequest, denyDeviceRequest, findDeviceRequest, normalizeUserCode, type DeviceRequestView } from '../../lib/accounts/devices';
import { clientOf } from '../../lib/audit-log';
import { ServiceError } from '../../lib/errors';
import { siteUser } from './credentials';
import type { SiteContext } from './context';
import { countWrongCode, mayEnterCode } from './device-code-throttle';
import { formAction } from './form-action';
import type { Refusal } from './forms';
import { isolated } from './isolated';
import { signedInPage } from './route-auth';

// Typed by hand (spaces, dashes, lower case): normalizeUserCode() reads it.
const codeField = Joi.string().allow('').max(40).default('');
const codeForm = { payload: Joi.object({ user_code: codeField }) };

const notACode = 'That is not a code of the right form: 8 letters, shown by your device as XXXX-XXXX.';
const wrongCode = 'No device is waiting for that code. Check the code your device shows now, and type it again.';

/**
 * The request a device's user code names, if the throttle lets this account and address look one up now. A code
 * that names none counts against both (device_code_entry in policies/site.yaml): whoever guesses codes gets a
 * handful of tries, then every code is refused, the right one too, until the window ends.
 */
async function deviceRequestOf(context: SiteContext, request: Request, typed: string): Promise<DeviceRequestView> {

    const userCode = normalizeUserCode(typed);
    if (!userCode) {
        throw new ServiceError('invalid_request', notACode);
    }

    const policy = context.policies().site;
    const entry = { userId: siteUser(request).id, ip: clientOf(request).ip };
    if (!await mayEnterCode(context.rateLimits, policy, entry)) {
        const minutes = Math.ceil(Math.max(policy.device_code_entry.per_account.window_seconds, policy.device_code_entry.per_ip.window_seconds) / 60);
        throw new ServiceError('rate_limited', `Too many codes that match no device were typed from your account or this address. Wait up to ${minutes} minutes, then try again.`, 429);
    }

    const found = await findDeviceRequest(context.accounts, userCode);
    if (!found) {
        await countWrongCode(context.rateLimits, policy, entry);
        throw new ServiceError('invalid_request', wrongCode);
    }

    return found;
}

/** The device approval page (RFC 8628 §3.3): a signed-in user types or follows a device's code, sees what asks, and approves or denies it. */
export function deviceRoutes(context: SiteContext): ServerRoute[] {

    const { models } = context;

    const entryPage = (h: ResponseToolkit, userCode = '', refusal?: Refusal) => h.view('device-enter', { title: 'Connect a device', userCode, error: refusal?.message }).code(refusal?.statusCode ?? 200);

    /** What asks to connect, and Approve and Deny while it waits; otherwise what became of it. */
    function confirmationPage(h: ResponseToolkit, device: DeviceRequestView) {

        const waiting = device.status === 'pending' && device.expiresAt.getTime() > Date.now();
        return h.view('device-confirm', {
            title: `Connect ${isolated(device.deviceName)}?`,
            device,
            waiting,
            expired: device.status === 'expired' || (device.status === 'pending' && !waiting)
        });
    }

    /** The code typed in the form or followed from the device's link: its confirmation, or the form again saying why not. */
    async function codePage(request: Request, h: ResponseToolkit, typed: string) {

        try {
            return confirmationPage(h, await deviceRequestOf(context, request, typed));
        }
        catch (error) {
            if (!(error instanceof ServiceError)) {
                throw error;
            }

            return entryPage(h, typed, { message: error.message, statusCode: error.statusCode === 400 ? 422 : error.statusCode });
        }
    }

    /** GET /device: the form, or the code the device's link carries (`verification_uri_complete`). */
    const codeFromLink = (request: Request, h: ResponseToolkit) => {

        const { user_code: typed } = request.query as { user_code: string };
        return typed ? codePage(request, h, typed) : entryPage(h);
    };

    const codeOf = (request: Request) => (request.payload as { user_code: string }).user_code;
    const refusedCode = (request: Request, h: ResponseToolkit, refusal: Refusal) => entryPage(h, codeOf(request), refusal);

    return [
        {
            method: 'GET',
            path: '/device',
            options: {
                auth: signedInPage,
                validate: { query: Joi.object({ user_code: codeField }) },
                handler: codeFromLink
            }
        },
        {
            method: 'POST',
            path: '/device',
            options: {
                auth: signedInPage,
                validate: codeForm,
                handler: (request, h) => codePage(request, h, codeOf(request))
            }
        },
        {
            method: 'POST',
            path: '/device/approve',
            options: {
                auth: signedInPage,
                validate: codeForm,
                handler: formAction(models, {
                    async run(request) {

                        const device = await deviceRequestOf(context, request, codeOf(request));
                        return approveDeviceRequest(context.accounts, device.userCode, (await models.User.findByPk(siteUser(request).id))!);
                    },
                    refused: refusedCode,
                    audited: (_request, grant) => ({ action: 'device.approve', familyLongId: grant.familyLongId, target: grant.id, detail: `${grant.clientName} on "${grant.deviceName}", scopes: ${grant.scopes.join(' ')}` }),
                    answer: (_request, h) => h.redirect('/device/approved')
                })
            }
        },
        {
            method: 'POST',
            path: '/device/deny',
            options: {
                auth: signedInPage,
                validate: codeForm,
                handler: formAction(models, {
                    async run(request) {

                        const device = await deviceRequestOf(context, request, codeOf(request));
                        await denyDeviceRequest(context.accounts, device.userCode, (await models.User.findByPk(siteUser(request).id))!);
                        return device;
                    },
                    refused: refusedCode,
                    audited: (request, device) => ({ action: 'device.deny', familyLongId: siteUser(request).familyLongId, target: device.clientId, detail: `${device.clientName} on "${device.deviceName}"` }),
                    answer: (_request, h) => h.redirect('/device/denied')
                })
            }
        },
        {
            method: 'GET',
            path: '/device/approved',
            options: {
                auth: signedInPage,
                handler: (_request, h) => h.view('device-done', { title: 'Device connected', approved: true })
            }
        },
        {
            method: 'GET',
            path: '/device/denied',
            options: {
                auth: signedInPage,
                handler: (_request, h) => h.view('device-done', { title: 'Device not connected', approved: false })
            }
        }
    ];
}
