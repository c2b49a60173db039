import type { PluginSpecificConfiguration, Request, ResponseObject, ResponseToolkit } from '@hapi/hapi';
import { Op, type Transaction } from 'sequelize';

import type { PolicyStore } from '../../gateway/policies/policy-store';
import { principalOf } from '../../gateway/principal';
import { withRevisionTag } from '../../lib/entity-tags';
import { idempotencyKeyOf, requestFingerprint } from '../../lib/idempotency-key-header';
import { apiError } from '../../lib/errors';
import { JobFailures } from '../../lib/job-failures';
import type { Log } from '../../lib/logger';
import { PolicyCronJobs } from '../../lib/policy-cron';
import type { Models } from '../../models';
import type { IdempotencyKey } from '../../models/idempotency-key';
import type { ResourceRecord } from '../../models/resource-record';
import { firstRevision, type CreateOptions } from './writes';

/*
 * Safe retries of creates (as Stripe's, and draft-ietf-httpapi-idempotency-key-header): a POST
 * with an `Idempotency-Key` stores its answer in the create's own transaction, so the record
 * and its answer exist together or not at all, and the same key again replays that answer.
 */

/** How long an answer is replayed; then its key names a new request. */
const idempotencyRetentionMs = 24 * 60 * 60 * 1000;

/** What the API reference says of a create route: the header it reads (its text and its 422 are in plugins/docs/request-headers.ts). */
export const idempotentCreateDocs = { headers: ['Idempotency-Key'] } as const satisfies NonNullable<PluginSpecificConfiguration['docs']>;

/** What a create answers: 201 with the record (`{ data }`) and its URL. */
export interface CreatedAnswer {
    body: object;
    location: string;
}

/**
 * A create as its route makes it: the record (with the options given) and the answer it gets,
 * made inside the create's `transaction` when the answer is stored with it.
 */
export interface Creation {
    create(options: Pick<CreateOptions, 'afterCreate'>): Promise<ResourceRecord>;
    answerOf(record: ResourceRecord, transaction?: Transaction): CreatedAnswer | Promise<CreatedAnswer>;
}

/** Which entry a request's key names, and what the request was. */
interface KeyedRequest {
    api_key_id: string;
    idempotency_key: string;
    fingerprint: string;
}

const oldestKept = (now = Date.now()) => new Date(now - idempotencyRetentionMs);

function findEntry(models: Models, keyed: KeyedRequest): Promise<IdempotencyKey | null> {

    return models.IdempotencyKey.findOne({ where: { api_key_id: keyed.api_key_id, idempotency_key: keyed.idempotency_key, created_at: { [Op.gte]: oldestKept() } } });
}

/** Stores the answer with the record it answers for; an entry of this key past its retention makes way. */
async function storeEntry(models: Models, request: Request, keyed: KeyedRequest, answer: CreatedAnswer, transaction: Transaction): Promise<void> {

    await models.IdempotencyKey.destroy({ where: { api_key_id: keyed.api_key_id, idempotency_key: keyed.idempotency_key, created_at: { [Op.lt]: oldestKept() } }, transaction });
    await models.IdempotencyKey.create({
        ...keyed,
        family_long_id: principalOf(request).family.familyLongId,
        method: request.method.toUpperCase(),
        path: request.path,
        response_status: 201,
        response_body: JSON.stringify(answer.body),
        response_location: answer.location,
        created_at: new Date()
    }, { transaction });
}

/** The 201 of a create, the first time or replayed: the record is at its first revision in either (its ETag then). */
function created(h: ResponseToolkit, answer: { body: object | string; location: string }, status = 201): ResponseObject {

    // The first time an object, which hapi writes with JSON.stringify as every answer; replayed, the text it wrote.
    const response = h.response(answer.body).type('application/json; charset=utf-8').code(status).header('Location', answer.location);
    return withRevisionTag(response, firstRevision);
}

/** The stored answer, when the entry is of this very request; 422 when the key was used for another. */
function replay(request: Request, h: ResponseToolkit, keyed: KeyedRequest, entry: IdempotencyKey): ResponseObject {

    if (entry.fingerprint !== keyed.fingerprint) {
        const other = entry.path === request.path ? `${entry.method} ${entry.path} with another body` : `${entry.method} ${entry.path}`;
        throw apiError(422, 'idempotency_key_reused', `This Idempotency-Key was used in the last 24 hours for another request (${other}): a new request needs a new key.`);
    }

    return created(h, { body: entry.response_body, location: entry.response_location }, entry.response_status).header('Idempotent-Replayed', 'true');
}

/**
 * Answers a create: made once per `Idempotency-Key` of the API key (replayed for 24 hours),
 * or each time without one. A create that fails stores nothing, so a corrected retry is made.
 */
export async function createOnce(models: Models, request: Request, h: ResponseToolkit, creation: Creation): Promise<ResponseObject> {

    const key = idempotencyKeyOf(request);
    if (key === undefined) {
        return created(h, await creation.answerOf(await creation.create({})));
    }

    const keyed: KeyedRequest = { api_key_id: principalOf(request).who.id, idempotency_key: key, fingerprint: requestFingerprint(request.path, request.payload) };
    const earlier = await findEntry(models, keyed);
    if (earlier) {
        return replay(request, h, keyed, earlier);
    }

    let answer: CreatedAnswer | undefined;
    try {
        await creation.create({
            async afterCreate(transaction, record) {

                answer = await creation.answerOf(record, transaction);
                await storeEntry(models, request, keyed, answer, transaction);
            }
        });
    }
    catch (error) {
        // The same key's request under way beside this one committed first (this one's entry failed on the
        // unique key, or its quota check counted the other's file): answer as it did. Otherwise the failure stands.
        const first = await findEntry(models, keyed).catch(() => null);
        if (first) {
            return replay(request, h, keyed, first);
        }

        throw error;
    }

    return created(h, answer!);
}

/** Deletes the entries past their retention: what the records plugin's schedule runs. Resolves to how many. */
export function deleteExpiredIdempotencyKeys(models: Models, now = Date.now()): Promise<number> {

    return models.IdempotencyKey.destroy({ where: { created_at: { [Op.lt]: oldestKept(now) } } });
}

/** That deletion on the schedule of policies/records.yaml, following reloads. */
export function idempotencyKeysCleanup(models: Models, policyStore: PolicyStore, log: Log): PolicyCronJobs {

    const failures = new JobFailures(log, ['records'], 'Deleting expired idempotency keys');
    return new PolicyCronJobs(policyStore, [{
        schedule: (policies) => policies.records.idempotency_keys.cleanup_schedule,
        run: () => void failures.run(() => deleteExpiredIdempotencyKeys(models))
    }]);
}
