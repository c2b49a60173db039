import type { Models } from '../../../models';

/** The users of a family by id, with the email the pages name them by. */
export async function familyPeople(models: Models, familyLongId: string): Promise<Map<string, string>> {

    const users = await models.User.findAll({ where: { family_long_id: familyLongId }, attributes: ['id', 'email'], order: [['email', 'ASC']] });
    return new Map(users.map((user) => [user.id, user.email]));
}

/** How a page names a user: their email, or words for one who left the family. */
export const nameOf = (people: Map<string, string>, userId: string): string => people.get(userId) ?? 'Someone no longer in the family';
