import { Op } from 'sequelize';

import { changeEventData, type ChangeEventData } from '../../lib/change-bus';
import type { Models } from '../../models';

/** Events read from the change log per query while replaying. */
const REPLAY_BATCH_SIZE = 500;

const DAY_MS = 24 * 60 * 60 * 1000;

/** Where a resumed stream carries on from, and whether the client must start over. */
export interface ResumePoint {
    /** The last event id the stream counts as sent. */
    position: number;
    /** Set when events after Last-Event-ID may be gone: the client must re-fetch, then carry on from `id`. */
    reset?: { reason: 'expired' | 'unknown'; message: string; id: number };
}

/** What a stream reads from the change log (the change_events table), the source of truth. */
export class ChangeLogReader {

    constructor(private readonly models: Models) {}

    /** The family's latest event id, 0 when it has none: a stream without Last-Event-ID starts after it. */
    async latest(familyLongId: string): Promise<number> {

        return Number(await this.models.ChangeEvent.max('id', { where: { family_long_id: familyLongId } }) ?? 0);
    }

    /**
     * Whether a stream can resume after `lastEventId` without a gap. Retention clean-up
     * deletes the oldest events first, so once the oldest event left is newer than
     * lastEventId + 1, events right after it may be gone; and an event of the family past
     * the retention window, though not yet deleted, counts as gone, so what a client can
     * resume does not depend on when the clean-up last ran.
     */
    async resumeAfter(familyLongId: string, lastEventId: number, resources: readonly string[], retentionDays: number): Promise<ResumePoint> {

        const newest = Number(await this.models.ChangeEvent.max('id') ?? 0);
        const oldest = Number(await this.models.ChangeEvent.min('id') ?? newest + 1);
        /*
         * After a reset the stream goes on from the family's latest event, as a new stream does, not from the
         * newest of all: on PostgreSQL a write of this family may hold an id below the newest, drawn but not yet
         * committed, and the stream must still send it, as must a reconnection resuming after the reset's id.
         * So that id is the family's latest too; for a family with no event left, the newest of all, which a
         * reconnection can resume after (the family's own events are serialised: none can be committing below
         * it unless its first write in the retention window is committing right now).
         */
        const reset = async (reason: 'expired' | 'unknown', message: string): Promise<ResumePoint> => {

            const latest = await this.latest(familyLongId);
            return { position: latest, reset: { reason, message, id: latest || newest } };
        };

        if (lastEventId > newest) {
            return reset('unknown', `Event ${lastEventId} is not in the change log (is it from another deployment?): re-fetch the resources, then carry on from this event.`);
        }

        const expired = () => reset('expired', `Events after ${lastEventId} are past the ${retentionDays}-day retention window: re-fetch the resources, then carry on from this event.`);
        if (oldest > lastEventId + 1) {
            return expired();
        }

        const firstMissed = await this.models.ChangeEvent.findOne({
            attributes: ['occurred_at'],
            where: { family_long_id: familyLongId, id: { [Op.gt]: lastEventId }, resource: { [Op.in]: [...resources] } },
            order: [['id', 'ASC']]
        });

        return firstMissed && firstMissed.occurred_at.getTime() < Date.now() - retentionDays * DAY_MS ? expired() : { position: lastEventId };
    }

    /** The family's events in `resources` after `after` (up to `upTo`), in id order, read in batches. */
    async *eventsAfter(familyLongId: string, after: number, resources: readonly string[], upTo = Number.MAX_SAFE_INTEGER): AsyncGenerator<ChangeEventData> {

        for (let position = after; ;) {
            const events = await this.models.ChangeEvent.findAll({
                where: { family_long_id: familyLongId, id: { [Op.gt]: position, [Op.lte]: upTo }, resource: { [Op.in]: [...resources] } },
                order: [['id', 'ASC']],
                limit: REPLAY_BATCH_SIZE
            });

            for (const event of events) {
                yield changeEventData(event);
            }

            if (events.length < REPLAY_BATCH_SIZE) {
                return;
            }

            position = events[events.length - 1].id;
        }
    }
}
