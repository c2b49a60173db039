import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import { Op } from 'sequelize';

import { blockedBy } from '../../lib/messaging/access';
import { blockUser, listBlocks, unblockUser } from '../../lib/messaging/blocks';
import type { UserBlock } from '../../models/user-block';
import { actorOf, messagingOf } from './actor';
import { pathIds, userId } from './request-schemas';
import { blockResponses, peopleResponse } from './response-docs';
import { writeRoute, type RouteDeclaration } from './route-declaration';

const blockJson = (block: UserBlock) => ({ user_id: block.blocked_id, created_at: block.created_at.toISOString() });

export function blockRoutes(declare: RouteDeclaration): ServerRoute[] {

    return [
        {
            method: 'GET',
            path: '/people',
            options: {
                ...declare('messages:read', peopleResponse),
                description: 'The people of your family you can message, and whether you blocked them',
                notes: 'Everyone of your family but you and disabled accounts, by email.',
                validate: { query: Joi.object({}) }
            },
            async handler(request) {

                const { models } = messagingOf(request);
                const actor = actorOf(request);
                const [people, blocked] = await Promise.all([
                    models.User.findAll({
                        where: { family_long_id: actor.familyLongId, id: { [Op.ne]: actor.userId }, disabled_at: null },
                        attributes: ['id', 'email'],
                        order: [['email', 'ASC'], ['id', 'ASC']]
                    }),
                    blockedBy(models, actor.userId)
                ]);
                return { data: people.map((person) => ({ id: person.id, email: person.email, blocked: blocked.has(person.id) })) };
            }
        },
        {
            method: 'GET',
            path: '/blocks',
            options: {
                ...declare('messages:read', blockResponses.list),
                description: 'The people you blocked',
                validate: { query: Joi.object({}) }
            },
            async handler(request) {

                return { data: (await listBlocks(messagingOf(request), actorOf(request))).map(blockJson) };
            }
        },
        writeRoute({
            method: 'PUT',
            path: '/blocks/{user_id}',
            options: {
                ...declare('messages:write', blockResponses.put),
                description: 'Block someone of your family',
                notes: 'They can no longer start a direct conversation with you or write in yours, and you no longer see their messages in groups. '
                    + 'Blocking yourself is 400.',
                validate: pathIds({ user_id: userId })
            },
            async handler(request, h) {

                const { block, changed } = await blockUser(messagingOf(request), actorOf(request), request.params.user_id as string);
                return h.response({ data: blockJson(block) }).code(changed ? 201 : 200);
            }
        }),
        writeRoute({
            method: 'DELETE',
            path: '/blocks/{user_id}',
            options: {
                ...declare('messages:write', blockResponses.delete),
                description: 'Unblock someone',
                validate: pathIds({ user_id: userId })
            },
            async handler(request, h) {

                await unblockUser(messagingOf(request), actorOf(request), request.params.user_id as string);
                return h.response().code(204);
            }
        })
    ];
}
