import { SignedOutError } from './errors';
import { apiErrorOf, httpFetch, jsonOf, type HttpOptions } from './http';
import type { Session } from './session';
import type { Block, Conflict, ConflictResolution, Conversation, Me, Message, OutboxItemWire, OutboxOutcome, Person, SyncPage, UploadRecord } from './types';

interface CallOptions {
    query?: Record<string, string | number | undefined>;
    body?: unknown;
    idempotencyKey?: string;
    /** A revision the write names (If-Match: its ETag). */
    revision?: number;
}

const path = (strings: TemplateStringsArray, ...ids: string[]) => strings.reduce((all, part, index) => all + encodeURIComponent(ids[index - 1]) + part);

/** A file's name from Content-Disposition (RFC 6266: filename* wins over filename). */
function fileNameOf(disposition: string | null): string {

    const extended = disposition?.match(/filename\*\s*=\s*UTF-8''([^;]+)/i);
    if (extended) {
        return decodeURIComponent(extended[1]);
    }

    return disposition?.match(/filename\s*=\s*"((?:[^"\\]|\\.)*)"/i)?.[1].replace(/\\(.)/g, '$1') ?? 'attachment';
}

/** Typed calls of every /messaging/v1 route, with the session's bearer token. */
export class MessagingClient {

    /** Where the API's routes are: `<serverUrl>/messaging/v1`. */
    readonly apiUrl: string;

    constructor(readonly serverUrl: string, readonly session: Session) {

        this.apiUrl = `${serverUrl}/messaging/v1`;
    }

    /**
     * A request of the API with the bearer token; a 401 `invalid_token` is retried once with the token another
     * process refreshed, or a refreshed one; refused again: SignedOutError. Network failures: OfflineError.
     */
    async authorizedFetch(url: string, options: HttpOptions = {}): Promise<Response> {

        const send = (token: string) => httpFetch(url, { ...options, headers: { ...options.headers as Record<string, string>, authorization: `Bearer ${token}` } });
        const token = await this.session.accessToken();
        const first = await send(token);
        if (first.status !== 401) {
            return first;
        }

        await first.body?.cancel();
        const again = await send(await this.session.refreshAfterRejection(token));
        if (again.status === 401) {
            await again.body?.cancel();
            throw new SignedOutError();
        }

        return again;
    }

    /** A call of the API: its JSON answer (undefined for 204); an error answer is an ApiError. */
    private async call<T>(method: string, route: string, options: CallOptions = {}): Promise<T> {

        const url = new URL(`${this.apiUrl}${route}`);
        for (const [name, value] of Object.entries(options.query ?? {})) {
            if (value !== undefined) {
                url.searchParams.set(name, String(value));
            }
        }

        const headers: Record<string, string> = { accept: 'application/json' };
        if (options.body !== undefined) {
            headers['content-type'] = 'application/json';
        }

        if (options.idempotencyKey !== undefined) {
            headers['idempotency-key'] = options.idempotencyKey;
        }

        if (options.revision !== undefined) {
            headers['if-match'] = `"${options.revision}"`;
        }

        const response = await this.authorizedFetch(url.href, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
        if (!response.ok) {
            throw await apiErrorOf(response);
        }

        return await jsonOf(response) as T;
    }

    private async data<T>(method: string, route: string, options?: CallOptions): Promise<T> {

        return (await this.call<{ data: T }>(method, route, options)).data;
    }

    me(): Promise<Me> {

        return this.call('GET', '/me');
    }

    conversations(): Promise<Conversation[]> {

        return this.data('GET', '/conversations');
    }

    conversation(id: string): Promise<Conversation> {

        return this.data('GET', path`/conversations/${id}`);
    }

    startDirect(userId: string, idempotencyKey?: string): Promise<Conversation> {

        return this.data('POST', '/conversations', { body: { kind: 'direct', user_id: userId }, idempotencyKey });
    }

    startGroup(title: string, memberIds: string[], idempotencyKey?: string): Promise<Conversation> {

        return this.data('POST', '/conversations', { body: { kind: 'group', title, member_ids: memberIds }, idempotencyKey });
    }

    renameGroup(id: string, title: string, idempotencyKey?: string): Promise<Conversation> {

        return this.data('PATCH', path`/conversations/${id}`, { body: { title }, idempotencyKey });
    }

    addMember(id: string, userId: string, idempotencyKey?: string): Promise<Conversation> {

        return this.data('POST', path`/conversations/${id}/members`, { body: { user_id: userId }, idempotencyKey });
    }

    async removeMember(id: string, userId: string): Promise<void> {

        await this.call('DELETE', path`/conversations/${id}/members/${userId}`);
    }

    async markRead(id: string): Promise<void> {

        await this.call('POST', path`/conversations/${id}/read`);
    }

    /** A page of the history, newest first; `next_cursor` (null on the last page) asks for the older one. */
    history(conversationId: string, options: { limit?: number; cursor?: string } = {}): Promise<{ data: Message[]; next_cursor: string | null }> {

        return this.call('GET', path`/conversations/${conversationId}/messages`, { query: options });
    }

    send(conversationId: string, input: { body?: string; upload_ids?: string[] }, idempotencyKey: string): Promise<Message> {

        return this.data('POST', path`/conversations/${conversationId}/messages`, { body: input, idempotencyKey });
    }

    message(id: string): Promise<Message> {

        return this.data('GET', path`/messages/${id}`);
    }

    /** Edits the message at `revision`; changed since: ApiError 412 whose `body.current` is the message as it is. */
    editMessage(id: string, revision: number, body: string, idempotencyKey?: string): Promise<Message> {

        return this.data('PATCH', path`/messages/${id}`, { body: { body }, revision, idempotencyKey });
    }

    deleteMessage(id: string, revision: number, idempotencyKey?: string): Promise<Message> {

        return this.data('DELETE', path`/messages/${id}`, { revision, idempotencyKey });
    }

    async downloadAttachment(messageId: string, uploadId: string): Promise<{ body: Buffer; mediaType: string; fileName: string }> {

        const response = await this.authorizedFetch(`${this.apiUrl}${path`/messages/${messageId}/attachments/${uploadId}`}`, { timeoutMs: 300_000 });
        if (!response.ok) {
            throw await apiErrorOf(response);
        }

        const body = Buffer.from(await response.arrayBuffer());
        return { body, mediaType: response.headers.get('content-type') ?? 'application/octet-stream', fileName: fileNameOf(response.headers.get('content-disposition')) };
    }

    people(): Promise<Person[]> {

        return this.data('GET', '/people');
    }

    blocks(): Promise<Block[]> {

        return this.data('GET', '/blocks');
    }

    async block(userId: string): Promise<void> {

        await this.call('PUT', path`/blocks/${userId}`);
    }

    async unblock(userId: string): Promise<void> {

        await this.call('DELETE', path`/blocks/${userId}`);
    }

    /** Sends the offline outbox (in order; at most the policy's `max_items` at once): what became of each item. */
    flushOutbox(items: OutboxItemWire[], idempotencyKey?: string): Promise<OutboxOutcome[]> {

        return this.data('POST', '/outbox', { body: { items }, idempotencyKey });
    }

    conflicts(options: { status?: 'open' | 'resolved' | 'all'; cursor?: string; limit?: number } = {}): Promise<{ data: Conflict[]; next_cursor: string | null }> {

        return this.call('GET', '/conflicts', { query: options });
    }

    conflict(id: string): Promise<Conflict> {

        return this.data('GET', path`/conflicts/${id}`);
    }

    /** `revision`: the conflict's revision as seen (a changed conflict is then ApiError 412); without it, as it is. */
    retryConflict(id: string, idempotencyKey: string, revision?: number): Promise<ConflictResolution> {

        return this.data('POST', path`/conflicts/${id}/retry`, { idempotencyKey, revision });
    }

    editConflict(id: string, body: string, idempotencyKey: string, revision?: number): Promise<ConflictResolution> {

        return this.data('POST', path`/conflicts/${id}/edit`, { body: { body }, idempotencyKey, revision });
    }

    discardConflict(id: string, idempotencyKey: string, revision?: number): Promise<Conflict> {

        return this.data('POST', path`/conflicts/${id}/discard`, { idempotencyKey, revision });
    }

    /** A page of changes after `cursor`, or the reset that says to fetch everything anew. */
    sync(options: { cursor?: string; limit?: number } = {}): Promise<SyncPage> {

        return this.call('GET', '/sync', { query: options });
    }

    upload(id: string): Promise<UploadRecord> {

        return this.data('GET', path`/uploads/${id}`);
    }
}
