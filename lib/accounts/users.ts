import Bcrypt from 'bcrypt';
import { Op, UniqueConstraintError } from 'sequelize';

import { ServiceError } from '../errors';
import { recordId } from '../ids';
import { hasMoreCharactersThan } from '../text-length';
import { textLimits } from '../text-limits';
import { familyRoles, type FamilyRole, type User } from '../../models/user';
import type { AccountsContext } from './context';
import { findFamily } from './families';

const bcryptRounds = 12;

export interface NewUser {
    email: string;
    password: string;
    familyLongId?: string;
    /** `manager`, `member`, or `super-admin` (a service operator, with or without a family). */
    role: string;
}

export async function createUser(context: AccountsContext, input: NewUser): Promise<User> {

    const email = input.email.trim().toLowerCase();
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) || hasMoreCharactersThan(email, textLimits.email)) {
        throw new ServiceError('invalid_request', `"${input.email}" is not an email address.`);
    }

    // bcrypt reads at most 72 bytes: beyond them, two passwords differing only there would both sign in.
    if (input.password.length < 10 || Buffer.byteLength(input.password) > 72) {
        throw new ServiceError('invalid_request', 'A password is 10 to 72 characters (72 bytes in UTF-8: fewer characters outside ASCII).');
    }

    if (!input.password.trim()) {
        throw new ServiceError('invalid_request', 'A password cannot be only white space.');
    }

    const isSuperAdmin = input.role === 'super-admin';
    if (!isSuperAdmin && !familyRoles.includes(input.role as FamilyRole)) {
        throw new ServiceError('invalid_request', `Unknown role "${input.role}": manager, member or super-admin.`);
    }

    if (!isSuperAdmin && !input.familyLongId) {
        throw new ServiceError('invalid_request', `A ${input.role} belongs to a family: give --family.`);
    }

    if (input.familyLongId) {
        await findFamily(context, input.familyLongId);
    }

    const exists = () => new ServiceError('conflict', `A user with email ${email} exists already.`, 409);
    if (await context.models.User.count({ where: { email } })) {
        throw exists();
    }

    try {
        return await context.models.User.create({
            id: recordId('usr'),
            email,
            password_hash: await Bcrypt.hash(input.password, bcryptRounds),
            family_long_id: input.familyLongId ?? null,
            role: isSuperAdmin ? null : input.role as FamilyRole,
            is_super_admin: isSuperAdmin
        });
    }
    catch (error) {
        // Created meanwhile by another command run at the same time: the unique index tells.
        if (error instanceof UniqueConstraintError) {
            throw exists();
        }

        throw error;
    }
}

/**
 * Disables a user, or enables them again: the devices they connected are refused from the next request on, on
 * every instance, they can connect no new one, and they can neither sign in to the site nor use messaging; their
 * site sessions end (enabling them again does not bring those back). A user already so stays as they were
 * (`changed` false). With `familyLongId`, a user of another family is not found (the super-admin pages of a family).
 */
export async function setUserDisabled(context: AccountsContext, id: string, disabled: boolean, scope: { familyLongId?: string } = {}): Promise<{ user: User; changed: boolean }> {

    const user = await context.models.User.findByPk(id);
    if (!user || (scope.familyLongId !== undefined && user.family_long_id !== scope.familyLongId)) {
        throw new ServiceError('not_found', `No user ${id}.`, 404);
    }

    const [updated] = await context.models.User.update({ disabled_at: disabled ? new Date() : null }, { where: { id, disabled_at: disabled ? null : { [Op.ne]: null } } });
    if (disabled) {
        await context.models.SiteSession.destroy({ where: { user_id: id } });
    }

    await user.reload();
    // Even when nothing changed: doing it again is how an operator finishes a change whose epoch move Redis missed.
    await context.authEpoch.bump();
    return { user, changed: updated > 0 };
}
