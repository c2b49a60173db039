import { Op, UniqueConstraintError, type Transaction } from 'sequelize';

import type { Models } from '../../models';
import type { MessagingIdempotencyKey } from '../../models/messaging-idempotency-key';
import { apiError } from '../errors';

/*
 * Safe retries of messaging writes: the first request under a key takes it (a row without an answer),
 * runs, and stores its answer in its own write's transaction, so the message and its answer exist
 * together or not at all. The same key again replays that answer; while the first still runs, it is
 * 409. A write that fails gives its key back, so a corrected retry runs.
 */

/** How long an answer is replayed; then its key names a new request. */
const retentionMs = 24 * 60 * 60 * 1000;

/**
 * A key taken this long ago and still without an answer belongs to a request that died before its
 * write committed (had it committed, the answer would be there): a retry takes it over.
 */
const abandonedAfterMs = 60 * 1000;

/** Whose key it is and what it names: a device (or the site's `site:` user) and a route, so keys never cross. */
export interface IdempotencyScope {
    grantId: string;
    /** Method and path template: `POST /conversations/{id}/messages`. */
    route: string;
    key: string;
    /** lib/idempotency-key-header.ts requestFingerprint(): the same key with another request is refused. */
    fingerprint: string;
}

export interface IdempotentAnswer {
    status: number;
    body: object;
    headers?: Record<string, string>;
}

/** Stores the answer in the write's transaction; a write without one has its answer stored after it. */
export type RecordAnswer = (transaction: Transaction, answer: IdempotentAnswer) => Promise<void>;

const whereScope = (scope: Pick<IdempotencyScope, 'grantId' | 'route' | 'key'>) => ({ grant_id: scope.grantId, route: scope.route, idempotency_key: scope.key });

function replayOf(scope: IdempotencyScope, entry: MessagingIdempotencyKey): IdempotentAnswer {

    if (entry.fingerprint !== scope.fingerprint) {
        throw apiError(422, 'idempotency_key_reused', `This Idempotency-Key was used in the last 24 hours for another request to ${scope.route}: a new request needs a new key.`);
    }

    if (entry.response_status === null) {
        throw apiError(409, 'conflict', 'A request with this Idempotency-Key is still being processed: retry it in a moment to get its answer.');
    }

    return { status: entry.response_status, body: JSON.parse(entry.response_body!) as object, headers: JSON.parse(entry.response_headers ?? '{}') as Record<string, string> };
}

/** Whether an entry no longer holds its key: past its retention, or taken by a request that died. */
function outlived(entry: MessagingIdempotencyKey, now: number): boolean {

    return entry.created_at.getTime() < now - retentionMs || (entry.response_status === null && entry.created_at.getTime() < now - abandonedAfterMs);
}

/**
 * Takes the key for this request, a new key (the usual case) in one statement; resolves to the earlier entry when
 * another request holds it. An outlived entry makes way, once: of two retries taking it over at once, one deletes
 * it (conditionally) and takes the key, and the other finds the new entry.
 */
async function take(models: Models, scope: IdempotencyScope): Promise<MessagingIdempotencyKey | undefined> {

    for (let attempt = 0; ; ++attempt) {
        const now = Date.now();
        try {
            await models.MessagingIdempotencyKey.create({ ...whereScope(scope), fingerprint: scope.fingerprint, created_at: new Date(now) });
            return undefined;
        }
        catch (error) {
            if (!(error instanceof UniqueConstraintError)) {
                throw error;
            }
        }

        const earlier = await models.MessagingIdempotencyKey.findOne({ where: whereScope(scope) });
        if (earlier && (attempt > 0 || !outlived(earlier, now))) {
            return earlier;
        }

        if (earlier) {
            await models.MessagingIdempotencyKey.destroy({ where: { ...whereScope(scope), created_at: earlier.created_at } });
        }
    }
}

/** Stores `answer` as the one a key replays: the first request's, or what an item's key answers once its conflict is resolved. */
export async function storeAnswer(models: Models, scope: Pick<IdempotencyScope, 'grantId' | 'route' | 'key'>, answer: IdempotentAnswer, transaction?: Transaction): Promise<void> {

    const stored = { response_status: answer.status, response_body: JSON.stringify(answer.body), response_headers: JSON.stringify(answer.headers ?? {}) };
    await models.MessagingIdempotencyKey.update(stored, { where: whereScope(scope), transaction });
}

/**
 * Answers a write once per scope: `work` runs the first time (calling `recordAnswer` in its transaction),
 * and the same key again gets its answer (`replayed`).
 */
export async function answerOnce(models: Models, scope: IdempotencyScope,
    work: (recordAnswer: RecordAnswer) => Promise<IdempotentAnswer>): Promise<{ answer: IdempotentAnswer; replayed: boolean }> {

    const earlier = await take(models, scope);
    if (earlier) {
        return { answer: replayOf(scope, earlier), replayed: true };
    }

    let recorded = false;
    const recordAnswer: RecordAnswer = async (transaction, answer) => {

        await storeAnswer(models, scope, answer, transaction);
        recorded = true;
    };

    let answer: IdempotentAnswer;
    try {
        answer = await work(recordAnswer);
    }
    catch (error) {
        await models.MessagingIdempotencyKey.destroy({ where: { ...whereScope(scope), response_status: null } });
        throw error;
    }

    if (!recorded) {
        await storeAnswer(models, scope, answer);
    }

    return { answer, replayed: false };
}

/** Deletes the entries past their retention. Resolves to how many. */
export function deleteExpiredMessagingIdempotencyKeys(models: Models, now = Date.now()): Promise<number> {

    return models.MessagingIdempotencyKey.destroy({ where: { created_at: { [Op.lt]: new Date(now - retentionMs) } } });
}
