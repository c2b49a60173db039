import type { Server } from '@hapi/hapi';
import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';
import { Op } from 'sequelize';

import { openFamilyChangeLog } from '../../../lib/change-bus';
import { familyWithKey, testVariant, type FamilyFixture } from '../../helpers/server';
import { expectRefusal, expectSuccess, newPerson } from '../../gateway/requests';
import { listeningServer, RawStream, streamSuiteTitle, until } from './client';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

const DAY_MS = 24 * 60 * 60 * 1000;

describe(streamSuiteTitle('resuming'), () => {

    let server: Server;

    before(async () => {

        server = await listeningServer();
    });

    after(() => server.stop());

    /** Creates a person; resolves with the id of its change event. */
    async function createPerson(family: FamilyFixture): Promise<number> {

        const response = await family.inject('POST', '/api/v1/persons', newPerson);
        expectSuccess(response, 201);
        const event = await server.app.services.models.ChangeEvent.findOne({ where: { record_id: JSON.parse(response.payload).data.id } });
        return event!.id;
    }

    /** Change events written straight to the log (no records behind them), `ageMs` old; resolves with their ids. */
    async function loggedEvents(family: FamilyFixture, count: number, ageMs = 0): Promise<number[]> {

        const { ChangeEvent } = server.app.services.models;
        const occurred_at = new Date(Date.now() - ageMs);
        const before = Number(await ChangeEvent.max('id') ?? 0);
        await ChangeEvent.bulkCreate(Array.from({ length: count }, (_, index) => ({ family_long_id: family.familyLongId, resource: 'persons', action: 'updated' as const, record_id: `per_logged${index}`, revision: index + 2, occurred_at })));
        const events = await ChangeEvent.findAll({ where: { family_long_id: family.familyLongId, id: { [Op.gt]: before } }, order: [['id', 'ASC']] });
        return events.map((event) => event.id);
    }

    async function opened(family: FamilyFixture, options: Parameters<typeof RawStream.open>[2] = {}): Promise<RawStream> {

        const stream = await RawStream.open(server, family.key, options);
        expect(stream.statusCode).to.equal(200);
        await until(() => stream.retry !== undefined, 'the retry hint');
        return stream;
    }

    const ids = (stream: RawStream) => stream.changes.map((event) => Number(event.id));

    it('replays what was missed after the Last-Event-ID header, in order, then carries on live', async () => {

        const family = await familyWithKey(server);
        const [first, second, third] = [await createPerson(family), await createPerson(family), await createPerson(family)];

        const stream = await opened(family, { headers: { 'last-event-id': String(first) } });
        await stream.nextChanges(2);
        const fourth = await createPerson(family);
        await stream.nextChanges(3);

        expect(ids(stream)).to.equal([second, third, fourth]);
        stream.close();
    });

    it('resumes from the last_event_id query parameter, for browsers\' EventSource', async () => {

        const family = await familyWithKey(server);
        const [first, second] = [await createPerson(family), await createPerson(family)];

        const stream = await opened(family, { query: `last_event_id=${first}` });
        await stream.nextChanges(1);
        const third = await createPerson(family);
        await stream.nextChanges(2);

        expect(ids(stream)).to.equal([second, third]);
        stream.close();
    });

    it('prefers the header to the query parameter: EventSource reconnects to the same URL with a newer header', async () => {

        const family = await familyWithKey(server);
        const [first, second, third] = [await createPerson(family), await createPerson(family), await createPerson(family)];

        const stream = await opened(family, { query: `last_event_id=${first}`, headers: { 'last-event-id': String(second) } });
        await stream.nextChanges(1);

        expect(ids(stream)).to.equal([third]);
        stream.close();
    });

    it('replays a long backlog in order, then goes live without a gap or a duplicate', async () => {

        const family = await familyWithKey(server);
        const start = await createPerson(family);
        const backlog = await loggedEvents(family, 1203);       // more than two batches of the change log

        const stream = await opened(family, { headers: { 'last-event-id': String(start) } });
        const live = [await createPerson(family), await createPerson(family)];
        await stream.nextChanges(backlog.length + live.length, 20_000);

        expect(ids(stream)).to.equal([...backlog, ...live]);
        stream.close();
    });

    it('replays only what the key may see', async () => {

        const family = await familyWithKey(server, { keyResources: ['persons'] });
        const start = await createPerson(family);
        await server.app.services.models.ChangeEvent.create({ family_long_id: family.familyLongId, resource: 'trees', action: 'created', record_id: 'tre_elsewhere', revision: 1, occurred_at: new Date() });
        const person = await createPerson(family);

        const stream = await opened(family, { headers: { 'last-event-id': String(start) } });
        await stream.nextChanges(1);
        const next = await createPerson(family);
        await stream.nextChanges(2);

        expect(ids(stream)).to.equal([person, next]);
        stream.close();
    });

    it('without Last-Event-ID starts from now: nothing from before', async () => {

        const family = await familyWithKey(server);
        await createPerson(family);
        const stream = await opened(family);
        const after = await createPerson(family);
        await stream.nextChanges(1);

        expect(ids(stream)).to.equal([after]);
        stream.close();
    });

    it('sends reset, never a silent gap, when events after Last-Event-ID are past the retention window', async () => {

        const family = await familyWithKey(server);
        const start = await createPerson(family);
        await loggedEvents(family, 2, 8 * DAY_MS);              // the shipped policy keeps 7 days

        const stream = await opened(family, { headers: { 'last-event-id': String(start) } });
        const reset = await stream.eventNamed('reset');
        const newest = Number(await server.app.services.models.ChangeEvent.max('id'));
        expect(reset.data).to.include({ reason: 'expired', last_event_id: start });
        expect(reset.data.message).to.include('re-fetch');
        expect(Number(reset.id)).to.be.at.least(newest);
        expect(stream.changes).to.equal([]);

        // From the reset on, the stream is live.
        const after = await createPerson(family);
        await stream.nextChanges(1);
        expect(ids(stream)).to.equal([after]);
        expect(stream.events.map((event) => event.event)).to.equal(['reset', 'persons.created']);
        stream.close();
    });

    it('replays events older than the window when none of them is the family\'s in scope', async () => {

        const family = await familyWithKey(server);
        const other = await familyWithKey(server);
        const start = await createPerson(family);
        await loggedEvents(other, 1, 8 * DAY_MS);
        const recent = await createPerson(family);

        const stream = await opened(family, { headers: { 'last-event-id': String(start) } });
        await stream.nextChanges(1);
        expect(ids(stream)).to.equal([recent]);
        expect(stream.events.some((event) => event.event === 'reset')).to.be.false();
        stream.close();
    });

    it('sends reset when the events after Last-Event-ID were deleted', async () => {

        const family = await familyWithKey(server);
        const [gone, kept] = await loggedEvents(family, 2);
        // As the retention clean-up does: the oldest events, whichever family's, are deleted first.
        await server.app.services.models.ChangeEvent.destroy({ where: { id: { [Op.lte]: gone } } });

        const stream = await opened(family, { headers: { 'last-event-id': String(gone - 1) } });
        const reset = await stream.eventNamed('reset');
        expect(reset.data.reason).to.equal('expired');
        expect(Number(reset.id)).to.be.at.least(kept);
        stream.close();
    });

    it('sends reset for an event id the service never sent', async () => {

        const family = await familyWithKey(server);
        const newest = await createPerson(family);

        const stream = await opened(family, { headers: { 'last-event-id': String(newest + 1_000_000) } });
        const reset = await stream.eventNamed('reset');
        expect(reset.data.reason).to.equal('unknown');
        expect(Number(reset.id)).to.be.at.least(newest);
        stream.close();
    });

    // SQLite has one writer at a time: another family's write could not commit while this one is open.
    it('after a reset, still sends the family\'s event whose id was drawn before the newest but committed after the reset, also to a reconnection', { skip: testVariant !== 'postgres' }, async () => {

        const family = await familyWithKey(server);
        const other = await familyWithKey(server);
        const { models, changeBus, sequelize } = server.app.services;
        const own = await createPerson(family);

        const slowWrite = await sequelize.transaction();
        const changeLog = await openFamilyChangeLog({ models, changeBus, familyLongId: family.familyLongId }, slowWrite);
        await changeLog.record({ resource: 'persons', action: 'updated', record_id: 'per_slowwrite', revision: 2 });
        const newest = await createPerson(other);

        const stream = await opened(family, { headers: { 'last-event-id': String(newest + 1_000_000) } });
        const reset = await stream.eventNamed('reset');
        // The family's latest: a client that reconnects with it misses nothing of the family's.
        expect(Number(reset.id)).to.equal(own);
        const reconnected = await opened(family, { headers: { 'last-event-id': reset.id! } });

        await slowWrite.commit();
        for (const resumed of [stream, reconnected]) {
            await until(() => resumed.changes.length === 1, 'the event committed after the reset');
            expect(resumed.changes[0].data.record_id).to.equal('per_slowwrite');
            expect(Number(resumed.changes[0].id)).to.be.below(newest);
            resumed.close();
        }
    });

    it('refuses a Last-Event-ID that is not an event id', async () => {

        const family = await familyWithKey(server);
        for (const headers of [{ 'last-event-id': 'abc' }, { 'last-event-id': '-1' }, { 'last-event-id': '1.5' }]) {
            expectRefusal(await family.inject('GET', '/api/v1/events/stream', undefined, headers), 400, 'invalid_request');
        }

        expectRefusal(await family.inject('GET', '/api/v1/events/stream?last_event_id=x'), 400, 'invalid_request');
        expectRefusal(await family.inject('GET', '/api/v1/events/stream?since=1'), 400, 'invalid_request');
    });
});
