import { apiKeyPrefix, displayParts, generateApiKeyToken, hashApiKey, isWellFormedApiKey } from '../../gateway/api-key-token';
import { livingPersonsAccesses, type ApiKey, type LivingPersonsAccess } from '../../models/api-key';
import { ServiceError } from '../errors';
import { recordId } from '../ids';
import { hasMoreCharactersThan } from '../text-length';
import { textLimits } from '../text-limits';
import type { AccountsContext } from './context';
import { findFamily } from './families';

export interface NewApiKey {
    familyLongId: string;
    name: string;
    resources: readonly string[];
    /** Defaults to the policy's default key operations (never a write operation). */
    operations?: readonly string[];
    createdBy: string;
    /** Only for keys imported from before write scopes existed: they stay read-only forever. */
    predatesWriteScopes?: boolean;
    /** What the key sees of living persons; `full` unless chosen. */
    livingPersons?: LivingPersonsAccess;
}

/** A key's option `living_persons`, checked: it may come from a form or a command line as any string. */
function checkLivingPersons(livingPersons: string): LivingPersonsAccess {

    if (!(livingPersonsAccesses as readonly string[]).includes(livingPersons)) {
        throw new ServiceError('invalid_request', `Living persons must be one of ${livingPersonsAccesses.join(', ')}.`);
    }

    return livingPersons as LivingPersonsAccess;
}

function checkResources(resources: readonly string[], exposed: readonly string[]): void {

    const choices = exposed.join(', ') || 'none: enable the API first';
    if (resources.length === 0) {
        throw new ServiceError('invalid_request', `A key needs at least one resource: choose among those the family exposes (${choices}).`);
    }

    const outside = resources.filter((resource) => !exposed.includes(resource));
    if (outside.length > 0) {
        throw new ServiceError('invalid_request', `A key's resources must be among those the family exposes (${choices}); not exposed: ${outside.join(', ')}.`);
    }
}

function checkOperations(context: AccountsContext, operations: readonly string[], predatesWriteScopes: boolean): void {

    const scopes = context.policies().scopes;
    const declared = scopes.operations.map((operation) => operation.name);
    if (operations.length === 0) {
        throw new ServiceError('invalid_request', `A key needs at least one operation: choose among ${declared.join(', ')}.`);
    }

    const unknown = operations.filter((operation) => !declared.includes(operation));
    if (unknown.length > 0) {
        throw new ServiceError('invalid_request', `Operations must be some of ${declared.join(', ')} (unknown: ${unknown.join(', ')}).`);
    }

    const beyondLegacy = operations.filter((operation) => !scopes.legacy_key_operations.includes(operation));
    if (predatesWriteScopes && beyondLegacy.length > 0) {
        throw new ServiceError('invalid_request', `This key predates write scopes and can never gain ${beyondLegacy.join(', ')}: create a new key instead.`);
    }
}

/** What a key may do, as the audit log words it: `persons, trees / read, search / living persons redacted`. */
export function keyScopesDetail(apiKey: ApiKey): string {

    return `${apiKey.resource_scopes.join(', ')} / ${apiKey.operation_scopes.join(', ')} / living persons ${apiKey.living_persons}`;
}

/** Creates a key and returns it in full, the only time it is ever shown. */
export async function createApiKey(context: AccountsContext, input: NewApiKey): Promise<{ key: string; apiKey: ApiKey }> {

    const family = await findFamily(context, input.familyLongId);
    const name = input.name.trim();
    if (!name || hasMoreCharactersThan(name, textLimits.apiKeyName)) {
        throw new ServiceError('invalid_request', `A key name is 1 to ${textLimits.apiKeyName} characters.`);
    }

    checkResources(input.resources, family.api_resources);
    const predatesWriteScopes = input.predatesWriteScopes ?? false;
    const operations = [...new Set(input.operations ?? context.policies().scopes.default_key_operations)];
    checkOperations(context, operations, predatesWriteScopes);
    const livingPersons = checkLivingPersons(input.livingPersons ?? 'full');

    const key = generateApiKeyToken();
    const apiKey = await context.models.ApiKey.create({
        id: recordId('key'),
        family_long_id: family.family_long_id,
        name,
        ...displayParts(key),
        secret_hash: hashApiKey(key, context.pepper),
        resource_scopes: [...new Set(input.resources)],
        operation_scopes: operations,
        predates_write_scopes: predatesWriteScopes,
        living_persons: livingPersons,
        created_by: input.createdBy
    });

    return { key, apiKey };
}

/**
 * A key by its id (`key_…`), or by the key itself (`frk_…`: one found leaked, say), looked up
 * by its hash. An error never repeats what may be a key.
 */
async function findKey(context: AccountsContext, idOrKey: string): Promise<ApiKey> {

    if (!idOrKey.startsWith(apiKeyPrefix)) {
        const apiKey = await context.models.ApiKey.findByPk(idOrKey);
        if (!apiKey) {
            throw new ServiceError('not_found', `No API key ${idOrKey}.`, 404);
        }

        return apiKey;
    }

    const apiKey = isWellFormedApiKey(idOrKey) ? await context.models.ApiKey.findOne({ where: { secret_hash: hashApiKey(idOrKey, context.pepper) } }) : null;
    if (!apiKey) {
        throw new ServiceError('not_found', `No API key of this service is the key given (${apiKeyPrefix}…, not shown); give the key's id (key_…) or the whole key.`, 404);
    }

    return apiKey;
}

/**
 * Changes what a key may do, and what it sees of living persons; a key from before write scopes can
 * never gain write operations.
 */
export async function changeApiKeyScopes(context: AccountsContext, id: string,
    scopes: { resources?: readonly string[]; operations?: readonly string[]; livingPersons?: LivingPersonsAccess }): Promise<ApiKey> {

    const apiKey = await findKey(context, id);
    const livingPersons = scopes.livingPersons === undefined ? apiKey.living_persons : checkLivingPersons(scopes.livingPersons);
    if (scopes.resources) {
        checkResources(scopes.resources, (await findFamily(context, apiKey.family_long_id)).api_resources);
    }

    if (scopes.operations) {
        checkOperations(context, scopes.operations, apiKey.predates_write_scopes);
    }

    await apiKey.update({
        resource_scopes: scopes.resources ? [...new Set(scopes.resources)] : apiKey.resource_scopes,
        operation_scopes: scopes.operations ? [...new Set(scopes.operations)] : apiKey.operation_scopes,
        living_persons: livingPersons
    });
    await context.authEpoch.bump();
    return apiKey;
}

/**
 * Revokes a key for good; the next request with it is refused, on every instance. A key revoked already
 * keeps when and by whom (`changed` false).
 */
export async function revokeApiKey(context: AccountsContext, id: string, by: string): Promise<{ apiKey: ApiKey; changed: boolean }> {

    const apiKey = await findKey(context, id);
    // One conditional UPDATE: of two revocations at once, only the first is recorded, and the other reads it.
    const [updated] = await context.models.ApiKey.update({ revoked_at: new Date(), revoked_by: by }, { where: { id: apiKey.id, revoked_at: null } });
    await apiKey.reload();
    // Even when nothing changed: doing it again is how an operator finishes a change whose epoch move Redis missed.
    await context.authEpoch.bump();

    return { apiKey, changed: updated > 0 };
}
