import type { PluginSpecificConfiguration } from '@hapi/hapi';

/*
 * What the API reference says the messaging routes answer (plugins.docs.responses): the JSON of
 * lib/messaging/serialize.ts, as JSON Schema 2020-12. test/plugins/messaging/openapi.ts checks real
 * answers against them, taking no property they do not declare.
 */

type Docs = NonNullable<PluginSpecificConfiguration['docs']>;
type Schema = Record<string, unknown>;

const header = (name: string) => ({ [name]: { $ref: `#/components/headers/${name}` } });
const time = { type: 'string', format: 'date-time', description: 'UTC, ISO 8601.' };
const maybe = (schema: Schema): Schema => ({ ...schema, type: [schema.type, 'null'] });
const id = (prefix: string, what: string): Schema => ({ type: 'string', pattern: `^${prefix}_[0-9A-Za-z]{20}$`, description: what });
const object = (properties: Record<string, Schema>, description?: string): Schema => ({
    type: 'object', required: Object.keys(properties), properties, ...(description ? { description } : {})
});

const conversationSchema = object({
    id: id('cnv', 'The conversation\'s id.'),
    kind: { enum: ['direct', 'group'], description: '`direct`: two people; `group`: named, members added and removed by its creator or a family manager.' },
    title: { type: ['string', 'null'], description: 'A group\'s name; null for a direct conversation.' },
    created_by: id('usr', 'Who started it.'),
    member_ids: { type: 'array', items: id('usr', 'A member.'), description: 'Its members, in the order they joined.' },
    unread_count: { type: 'integer', minimum: 0, description: 'Messages of others you have not read (none from people you blocked).' },
    revision: { type: 'integer', minimum: 1, description: 'Incremented on every change of its name or members: its ETag.' },
    created_at: time,
    updated_at: time,
    last_message_at: maybe(time)
}, 'A conversation you are in.');

const attachmentSchema = object({
    upload_id: id('upl', 'The upload the file came from.'),
    file_name: { type: 'string' },
    media_type: { type: 'string' },
    size_bytes: { type: 'integer', minimum: 0 }
});

const messageSchema = object({
    id: id('msg', 'The message\'s id.'),
    conversation_id: id('cnv', 'Its conversation.'),
    sender_id: id('usr', 'Who sent it.'),
    body: { type: ['string', 'null'], description: 'Its text; null once deleted, or for files alone.' },
    attachments: { type: 'array', items: attachmentSchema, description: 'Its files; empty once deleted.' },
    deleted: { type: 'boolean', description: 'A tombstone: deleted by its sender, kept in its place in the history without text or files.' },
    revision: { type: 'integer', minimum: 1, description: 'Incremented on every edit and on deletion: its ETag, `"` + revision + `"`, which an edit or delete sends in If-Match.' },
    created_at: { ...time, description: 'When the service took it: its place in the history.' },
    edited_at: maybe(time),
    deleted_at: maybe(time),
    client_time: { ...maybe(time), description: 'When the client wrote it offline (an outbox item); null otherwise.' }
}, 'A message.');

const personSchema = object({
    id: id('usr', 'Their user id.'),
    email: { type: 'string' },
    blocked: { type: 'boolean', description: 'Whether you have blocked them.' }
}, 'Someone of your family you can message.');

const blockSchema = object({
    user_id: id('usr', 'Whom you blocked.'),
    created_at: time
}, 'Someone you blocked.');

/** The records of the messaging API, as the reference names them (components.schemas): every route declares them. */
export const messagingSchemas = { Conversation: conversationSchema, Message: messageSchema, Person: personSchema, Block: blockSchema };

const ref = (name: keyof typeof messagingSchemas): Schema => ({ $ref: `#/components/schemas/${name}` });
const conversation = ref('Conversation');
const message = ref('Message');

const json = (schema: Schema) => ({ 'application/json': { schema } });
const data = (schema: Schema) => json(object({ data: schema }));
const list = (schema: Schema) => json(object({ data: { type: 'array', items: schema } }));
const tagged = { ...header('ETag') };
const replayable = { ...header('Idempotent-Replayed') };

/** A write's answer has no body: 204. */
export const noContent = (description: string): Docs => ({ responses: { 204: { description, headers: replayable } } });

export const conversationResponses = {
    list: { responses: { 200: { description: 'Your conversations.', content: list(conversation) } } },
    read: { responses: { 200: { description: 'The conversation.', headers: tagged, content: data(conversation) } } },
    create: {
        responses: {
            200: { description: 'The direct conversation you already have with that person.', headers: { ...tagged, ...replayable }, content: data(conversation) },
            201: { description: 'The new conversation.', headers: { ...tagged, ...replayable }, content: data(conversation) }
        }
    },
    update: { responses: { 200: { description: 'The conversation as changed.', headers: { ...tagged, ...replayable }, content: data(conversation) } } }
} satisfies Record<string, Docs>;

export const historyResponse: Docs = {
    responses: {
        200: {
            description: 'A page of the history, newest first.',
            content: json(object({
                data: { type: 'array', items: message },
                next_cursor: { type: ['string', 'null'], description: 'Pass as `cursor` for the next (older) page; null on the last page.' }
            }))
        }
    }
};

export const messageResponses = {
    read: { responses: { 200: { description: 'The message.', headers: tagged, content: data(message) } } },
    send: { responses: { 201: { description: 'The message, sent.', headers: { ...tagged, ...replayable }, content: data(message) } } },
    update: { responses: { 200: { description: 'The message as edited; its ETag is the new revision.', headers: { ...tagged, ...replayable }, content: data(message) } } },
    delete: { responses: { 200: { description: 'The message\'s tombstone; its ETag is the new revision.', headers: { ...tagged, ...replayable }, content: data(message) } } },
    attachment: { responses: { 200: { description: 'The file\'s bytes, of the type its content was found to be, to save under the name of its Content-Disposition.', content: { 'application/octet-stream': {} } } } }
} satisfies Record<string, Docs>;

export const peopleResponse: Docs = { responses: { 200: { description: 'The people of your family you can message, you left out.', content: list(ref('Person')) } } };

export const blockResponses = {
    list: { responses: { 200: { description: 'The people you blocked, the most recent first.', content: list(ref('Block')) } } },
    put: {
        responses: {
            200: { description: 'You had blocked them already: nothing changed.', headers: replayable, content: data(ref('Block')) },
            201: { description: 'Blocked.', headers: replayable, content: data(ref('Block')) }
        }
    },
    delete: noContent('Unblocked (or not blocked in the first place).')
} satisfies Record<string, Docs>;

/** The 412 of a stale If-Match carries the message as it is now. */
export const staleMessageFields = { current: message };

export const meResponse: Docs = {
    responses: {
        200: {
            description: 'Whom the device token speaks for.',
            content: json(object({
                user: object({ id: id('usr', 'The user.'), email: { type: 'string' } }),
                family: object({ id: { type: 'string', description: 'The family\'s id.' }, name: { type: 'string' } }),
                device: object({ id: { type: 'string', description: 'The device\'s grant (`dev_…`).' }, name: { type: 'string' }, client_id: { type: 'string' } }),
                scopes: { type: 'array', items: { type: 'string' }, description: 'What the user approved for this device.' },
                token_expires_at: { ...time, description: 'When this access token expires: refresh it before.' }
            }))
        }
    }
};
