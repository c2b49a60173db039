import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import { Op } from 'sequelize';

import { auditActions, cliActorId } from '../../../lib/audit-log';
import { storableText } from '../../../lib/storable-text';
import type { SiteContext } from '../context';
import { superAdminPage } from '../route-auth';

const pageSize = 50;

/** The audit log, newest first, by family and action; paged by id so new entries never shift a page. */
export function auditRoutes(context: SiteContext): ServerRoute[] {

    return [{
        method: 'GET',
        path: '/admin/audit',
        options: {
            auth: superAdminPage,
            validate: {
                query: Joi.object({
                    // A family id (`fam_…`): ASCII, so UTF-16 units are its characters.
                    family: storableText(Joi.string().max(64)).trim().allow('').default(''),
                    action: Joi.string().valid('', ...Object.keys(auditActions)).default(''),
                    before: Joi.number().integer().min(1)
                })
            },
            async handler(request, h) {

                const { family, action, before } = request.query as { family: string; action: string; before?: number };
                const events = await context.models.AuditEvent.findAll({
                    where: {
                        ...(family ? { family_long_id: family } : {}),
                        ...(action ? { action } : {}),
                        ...(before ? { id: { [Op.lt]: before } } : {})
                    },
                    order: [['id', 'DESC']],
                    limit: pageSize + 1
                });

                const shown = events.slice(0, pageSize);
                const older = events.length > pageSize ? new URLSearchParams({ family, action, before: String(shown.at(-1)!.id) }) : undefined;
                return h.view('audit', {
                    title: 'Audit log',
                    family,
                    actions: Object.entries(auditActions).map(([name, label]) => ({ name, label, selected: name === action })),
                    events: shown.map((event) => ({
                        ...event.get(),
                        label: auditActions[event.action as keyof typeof auditActions] ?? event.action,
                        who: event.actor_id === cliActorId ? 'An operator (CLI)' : event.actor_email
                    })),
                    older: older && `/admin/audit?${older}`
                });
            }
        }
    }];
}
