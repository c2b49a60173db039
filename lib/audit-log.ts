import Os from 'os';

import type { Request } from '@hapi/hapi';
import type { Transaction } from 'sequelize';

import type { Models } from '../models';

/** Where a request came from, as the audit log, the hosted site's sessions and its sign-in throttle take it. */
export function clientOf(request: Request): { ip: string; userAgent: string | null } {

    const userAgent = request.headers['user-agent'] as string | undefined;
    return { ip: request.clientAddress(), userAgent: userAgent ? userAgent.slice(0, 300) : null };
}

/** Every action the audit log records, with how the audit page names it. */
export const auditActions = {
    'session.sign_in': 'Signed in',
    'session.sign_out': 'Signed out',
    'two_factor.enable': 'Turned on two-factor sign-in',
    'two_factor.disable': 'Turned off two-factor sign-in',
    'two_factor.recovery_code_used': 'Signed in with a recovery code',
    'api.enable': 'Turned on API access',
    'api.disable': 'Turned off API access',
    'api_key.create': 'Created an API key',
    'api_key.change_scopes': 'Changed an API key\'s scopes',
    'api_key.revoke': 'Revoked an API key',
    'webhook.create': 'Added a webhook endpoint',
    'webhook.rotate_secret': 'Rotated a webhook secret',
    'webhook.disable': 'Disabled a webhook endpoint',
    'webhook.enable': 'Enabled a webhook endpoint',
    'webhook.delete': 'Deleted a webhook endpoint',
    'webhook.redeliver': 'Redelivered a webhook event',
    'webhook.test': 'Sent a test event to a webhook endpoint',
    'device.approve': 'Connected a device',
    'device.deny': 'Refused to connect a device',
    'device.revoke': 'Disconnected a device',
    'family.suspend': 'Suspended a family\'s API',
    'family.unsuspend': 'Unsuspended a family\'s API',
    'family.suspend_messaging': 'Suspended a family\'s messaging',
    'family.restore_messaging': 'Restored a family\'s messaging',
    'user.disable': 'Disabled a user',
    'user.enable': 'Enabled a user',
    // Only the operator CLI does these.
    'family.create': 'Created a family',
    'family.change_plan': 'Changed a family\'s plan',
    'user.create': 'Created a user'
} as const;

export type AuditAction = keyof typeof auditActions;

export interface AuditEntry {
    action: AuditAction;
    familyLongId?: string | null;
    target?: string | null;
    detail?: string | null;
    /** Who acted, when nobody is signed in yet (sign-in); otherwise the signed-in user. */
    actor?: { id: string | null; email: string | null };
}

/** Who acted, and from where: an address and a browser, or the machine account that ran a CLI command. */
interface AuditSource {
    actor: { id: string | null; email: string | null };
    ip: string | null;
    userAgent: string | null;
}

async function record(models: Models, { actor, ip, userAgent }: AuditSource, entry: AuditEntry, transaction?: Transaction): Promise<void> {

    await models.AuditEvent.create({
        occurred_at: new Date(),
        actor_id: actor.id,
        actor_email: actor.email,
        action: entry.action,
        family_long_id: entry.familyLongId ?? null,
        target: entry.target ?? null,
        detail: entry.detail ?? null,
        ip,
        user_agent: userAgent
    }, { transaction });
}

/**
 * Records who did what, when and from where: the hosted site's pages and the webhooks
 * plugin's JSON routes alike. The actor is the `site-session` user unless given; within
 * `transaction`, the entry commits with the action it records.
 */
export async function audit(models: Models, request: Request, entry: AuditEntry, transaction?: Transaction): Promise<void> {

    const user = (request.auth.credentials as { user?: { id?: string; email?: string } } | null)?.user;
    const { ip, userAgent } = clientOf(request);
    await record(models, { actor: entry.actor ?? { id: user?.id ?? null, email: user?.email ?? null }, ip, userAgent }, entry, transaction);
}

/** The actor of what an operator did with the CLI, as `created_by` and `api_suspended_by` record it too. */
export const cliActorId = 'cli';

/** The account that ran the command, `ada@host`: a container without a passwd entry for its user has only $USER, or nothing. */
function machineAccount(): string {

    let user: string | undefined;
    try {
        user = Os.userInfo().username;
    }
    catch {
        user = process.env.USER;
    }

    return `${user ?? `uid ${process.getuid?.() ?? '?'}`}@${Os.hostname()}`;
}

/** Records a change an operator made with the CLI: no signed-in user, but the log tells it from the site's, and on which machine, as whom. */
export async function auditCliCommand(models: Models, entry: AuditEntry): Promise<void> {

    await record(models, { actor: { id: cliActorId, email: null }, ip: null, userAgent: `family-records CLI, ${machineAccount()}`.slice(0, 300) }, entry);
}
