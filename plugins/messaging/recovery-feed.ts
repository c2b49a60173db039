import type { FeedEvent, StartPoint, StreamFeed } from '../../lib/event-stream/event-stream';
import { sseEvent } from '../../lib/event-stream/sse';
import type { MessagingBatch, MessagingChangeData } from '../../lib/messaging/changes';
import type { MessagingActor, MessagingContext } from '../../lib/messaging/context';
import { unreadCounts } from '../../lib/messaging/conversations';
import {
    changedRecords, entriesOf, latestCursor, positionOf, resumeCheck, visibleChanges, withRecords, type ChangedRecords, type LoggedChange, type SyncEntry
} from '../../lib/messaging/sync';

/** Changes read from the log per query while replaying. */
const REPLAY_PAGE_SIZE = 500;

/** An entry of sync as the stream sends it: `id:` its cursor, `event: <kind>.<action>`, `data:` the entry. */
function feedEvent(entry: SyncEntry): FeedEvent {

    return { id: positionOf(entry.cursor).afterId, text: sseEvent({ id: entry.cursor, event: `${entry.kind}.${entry.action}`, data: entry }) };
}

const loggedChange = (change: MessagingChangeData): LoggedChange => ({ ...change, occurred_at: new Date(change.occurred_at) });

/** What a batch's readers share: who is in its conversations now, the records its changes name, and whom each reader blocked. */
interface BatchRecords {
    changes: LoggedChange[];
    members: Map<string, Set<string>>;
    records: ChangedRecords;
    blocks: Map<string, Set<string>>;
}

/** Rows of (key, value) as sets by key. */
function groupedSets<Row>(rows: readonly Row[], key: (row: Row) => string, value: (row: Row) => string): Map<string, Set<string>> {

    const sets = new Map<string, Set<string>>();
    rows.forEach((row) => sets.set(key(row), (sets.get(key(row)) ?? new Set()).add(value(row))));
    return sets;
}

/**
 * One batch of the messaging bus as every stream of its family sees it, read once for all (three
 * queries for a message, whatever the number of streams): who is in its conversations now (sync's
 * rule: a conversation's changes go to its members as they are when read, so one removed stops
 * getting them and one added starts), the records, and whom each reader blocked. Each user's events
 * are made once and written alike on all that user's streams.
 */
class BatchView {
    private shared?: Promise<BatchRecords>;
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

        const { changes, members, records, blocks } = await this.sharedRecords();
        const seen = changes.filter((change, index) => {

            const { user_id: userId } = this.batch.events[index];
            return userId === null ? change.conversation_id !== null && members.get(change.conversation_id)?.has(actor.userId) : userId === actor.userId;
        });
        if (!seen.length) {
            return [];
        }

        const unread = records.conversations.size ? await unreadCounts(this.context, actor) : new Map<string, number>();
        return entriesOf(actor, seen, records, { blocked: blocks.get(actor.userId) ?? new Set(), unread }).map(feedEvent);
    }

    private sharedRecords(): Promise<BatchRecords> {

        this.shared ??= (async () => {

            const { models } = this.context;
            const { events, family_long_id: familyLongId } = this.batch;
            const changes = events.map(loggedChange);
            const conversationIds = [...new Set(events.flatMap((change) => (change.user_id === null && change.conversation_id ? [change.conversation_id] : [])))];
            const [memberRows, records] = await Promise.all([
                conversationIds.length ? models.ConversationMember.findAll({ where: { conversation_id: conversationIds }, attributes: ['conversation_id', 'user_id'] }) : [],
                changedRecords(this.context, familyLongId, changes)
            ]);
            const readers = [...new Set([...memberRows.map((row) => row.user_id), ...events.flatMap((change) => (change.user_id ? [change.user_id] : []))])];
            const blockRows = readers.length ? await models.UserBlock.findAll({ where: { blocker_id: readers }, attributes: ['blocker_id', 'blocked_id'] }) : [];
            return {
                changes,
                members: groupedSets(memberRows, (row) => row.conversation_id, (row) => row.user_id),
                records,
                blocks: groupedSets(blockRows, (row) => row.blocker_id, (row) => row.blocked_id)
            };
        })();
        return this.shared;
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
