import { Op } from 'sequelize';

import type { ScopesPolicy } from '../../gateway/policies/scopes';
import type { Models } from '../../models';
import type { ApiKey } from '../../models/api-key';

/** How a page lists an API key: never the secret, only its recognisable ends. */
export interface KeyRow {
    id: string;
    name: string;
    /** `frk_AbCd…wxyz`. */
    shown: string;
    resources: string[];
    readOperations: string[];
    writeOperations: string[];
    legacy: boolean;
    /** The key sees living persons redacted: named "Living", their details removed. */
    livingRedacted: boolean;
    createdBy: string;
    createdAt: Date;
    lastUsedAt: Date | null;
    revokedAt: Date | null;
}

/** Creators are user ids or `cli`: shown as emails where a user made them. */
async function creatorNames(models: Models, keys: readonly ApiKey[]): Promise<Map<string, string>> {

    const ids = [...new Set(keys.map((key) => key.created_by))];
    const users = await models.User.findAll({ where: { id: { [Op.in]: ids } }, attributes: ['id', 'email'] });
    return new Map(users.map((user) => [user.id, user.email]));
}

export async function keyRows(models: Models, scopes: ScopesPolicy, keys: readonly ApiKey[]): Promise<KeyRow[]> {

    const writes = new Set(scopes.operations.filter((operation) => operation.write).map((operation) => operation.name));
    const creators = await creatorNames(models, keys);
    return keys.map((key) => ({
        id: key.id,
        name: key.name,
        shown: `${key.display_prefix}…${key.last_four}`,
        resources: key.resource_scopes,
        readOperations: key.operation_scopes.filter((operation) => !writes.has(operation)),
        writeOperations: key.operation_scopes.filter((operation) => writes.has(operation)),
        legacy: key.predates_write_scopes,
        livingRedacted: key.living_persons === 'redacted',
        createdBy: creators.get(key.created_by) ?? key.created_by,
        createdAt: key.created_at,
        lastUsedAt: key.last_used_at,
        revokedAt: key.revoked_at
    }));
}

/** A family's keys, newest first. */
export async function familyKeys(models: Models, familyLongId: string): Promise<ApiKey[]> {

    return models.ApiKey.findAll({ where: { family_long_id: familyLongId }, order: [['created_at', 'DESC'], ['id', 'ASC']] });
}

/** The ticks of a key form: each operation, whether it writes, ticked, and whether it may be ticked at all. */
export function operationTicks(scopes: ScopesPolicy, ticked: readonly string[], legacy: boolean) {

    return scopes.operations.map((operation) => ({
        name: operation.name,
        description: operation.description,
        write: Boolean(operation.write),
        checked: ticked.includes(operation.name),
        disabled: legacy && !scopes.legacy_key_operations.includes(operation.name)
    }));
}
