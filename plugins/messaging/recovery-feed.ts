import type { FeedEvent, StartPoint, StreamFeed } from '../../lib/event-stream/event-stream';
import { sseEvent } from '../../lib/event-stream/sse';
import type { MessagingBatch, MessagingChangeData } from '../../lib/messaging/changes';
import type { MessagingActor, MessagingContext } from '../../lib/messaging/context';
import { latestCursor, positionOf, resumeCheck, visibleChanges, withRecords, type LoggedChange, type SyncEntry } from '../../lib/messaging/sync';

/** Changes read from the log per query while replaying. */
const REPLAY_PAGE_SIZE = 500;

/** An entry of sync as the stream sends it: `id:` its cursor, `event: <kind>.<action>`, `data:` the entry. */
function feedEvent(entry: SyncEntry): FeedEvent {

    return { id: positionOf(entry.cursor).afterId, text: sseEvent({ id: entry.cursor, event: `${entry.kind}.${entry.action}`, data: entry }) };
}

const loggedChange = (change: MessagingChangeData): LoggedChange => ({ ...change, occurred_at: new Date(change.occurred_at) });

/**
 * One batch of the messaging bus as every stream of its family sees it, read once for all: who is
 * in its conversations now (sync's rule: a conversation's changes go to its members as they are
 * when read, so one removed stops getting them and one added starts), and each user's events,
 * written alike on all that user's streams.
 */
class BatchView {
    private members?: Promise<Map<string, Set<string>>>;
    private readonly byUser = new Map<string, Promise<FeedEvent[]>>();

    constructor(private readonly context: MessagingContext, private readonly batch: MessagingBatch) {}

    eventsFor(actor: MessagingActor): Promise<FeedEvent[]> {

        let events = this.byUser.get(actor.userId);
        if (!events) {
            events = this.read(actor);
            this.byUser.set(actor.userId, events);
        }

        return events;
    }

    private async read(actor: MessagingActor): Promise<FeedEvent[]> {

        const members = await this.membersNow();
        const seen = this.batch.events.filter((change) => (change.user_id === null ?
            change.conversation_id !== null && members.get(change.conversation_id)?.has(actor.userId) :
            change.user_id === actor.userId));
        return seen.length ? (await withRecords(this.context, actor, seen.map(loggedChange))).map(feedEvent) : [];
    }

    private membersNow(): Promise<Map<string, Set<string>>> {

        this.members ??= (async () => {

            const ids = [...new Set(this.batch.events.flatMap((change) => (change.user_id === null && change.conversation_id ? [change.conversation_id] : [])))];
            const rows = ids.length ? await this.context.models.ConversationMember.findAll({ where: { conversation_id: ids }, attributes: ['conversation_id', 'user_id'] }) : [];
            const members = new Map<string, Set<string>>();
            rows.forEach((row) => members.set(row.conversation_id, (members.get(row.conversation_id) ?? new Set()).add(row.user_id)));
            return members;
        })();
        return this.members;
    }
}

/** The batch views of one route's streams: a batch object, handed to every stream of its family, is read once. */
export class BatchViews {
    private readonly views = new WeakMap<MessagingBatch, BatchView>();

    constructor(private readonly context: MessagingContext) {}

    of(batch: MessagingBatch): BatchView {

        let view = this.views.get(batch);
        if (!view) {
            view = new BatchView(this.context, batch);
            this.views.set(batch, view);
        }

        return view;
    }
}

/**
 * What a recovery stream carries: the messaging changes its user sees, as sync's entries, from the
 * messaging change log and its bus. It starts after `cursor` (a reset past retention), or after the
 * family's latest change, announced by a `ready` event whose id is that place.
 */
export class RecoveryFeed implements StreamFeed<MessagingBatch> {

    constructor(private readonly context: MessagingContext, private readonly views: BatchViews, private readonly actor: MessagingActor, private readonly cursor?: string) {}

    async start(): Promise<StartPoint> {

        const resume = this.cursor === undefined ? undefined : await resumeCheck(this.context, this.actor, this.cursor);
        if (resume && 'reset' in resume) {
            // Its id is where the client carries on from once it has synced anew.
            return { position: positionOf(resume.cursor).afterId, first: sseEvent({ id: resume.cursor, event: 'reset', data: resume }), catchUp: false };
        }

        const cursor = this.cursor ?? await latestCursor(this.context, this.actor.familyLongId);
        return { position: positionOf(cursor).afterId, first: sseEvent({ id: cursor, event: 'ready', data: { cursor } }), catchUp: resume !== undefined };
    }

    eventsOf(batch: MessagingBatch): Promise<FeedEvent[]> {

        return this.views.of(batch).eventsFor(this.actor);
    }

    async *replay(after: number, upTo?: number): AsyncGenerator<FeedEvent> {

        for (let position = after; ;) {
            const changes = await visibleChanges(this.context, this.actor, position, REPLAY_PAGE_SIZE, upTo);
            for (const entry of await withRecords(this.context, this.actor, changes)) {
                yield feedEvent(entry);
            }

            if (changes.length < REPLAY_PAGE_SIZE) {
                return;
            }

            position = changes[changes.length - 1].id;
            yield { id: position };           // the page's last change, whether the user sees it or not
        }
    }
}
