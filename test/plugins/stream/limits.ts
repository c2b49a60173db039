import Fs from 'fs';
import Path from 'path';

import type { Server } from '@hapi/hapi';
import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';

import type { ChangeBatch } from '../../../lib/change-bus';
import { anotherKey, expectSuccess, newPerson } from '../../gateway/requests';
import { copyPolicies, familyWithKey, type FamilyFixture } from '../../helpers/server';
import { listeningServer, RawStream, streamSuiteTitle, until } from './client';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

const MAX_BUFFERED_EVENTS = 50;
const MAX_STREAMS_PER_KEY = 2;

/** The shipped policies with a fast heartbeat, a small buffer and a low cap on streams. */
function streamTestPolicies(): string {

    const directory = copyPolicies();
    const file = Path.join(directory, 'stream.yaml');
    const edited = Fs.readFileSync(file, 'utf8')
        .replace(/^heartbeat_seconds: .*$/m, 'heartbeat_seconds: 0.05')
        .replace(/^max_buffered_events: .*$/m, `max_buffered_events: ${MAX_BUFFERED_EVENTS}`)
        .replace(/^max_streams_per_key: .*$/m, `max_streams_per_key: ${MAX_STREAMS_PER_KEY}`);
    Fs.writeFileSync(file, edited);
    return directory;
}

describe(streamSuiteTitle('pacing and limits'), () => {

    let server: Server;

    before(async () => {

        server = await listeningServer({ policiesDir: streamTestPolicies() });
    });

    after(() => server.stop());

    async function opened(family: FamilyFixture, key = family.key): Promise<RawStream> {

        const stream = await RawStream.open(server, key);
        expect(stream.statusCode).to.equal(200);
        await until(() => stream.retry !== undefined, 'the retry hint');
        return stream;
    }

    it('sends heartbeat comments at the policy\'s interval while idle', async () => {

        const family = await familyWithKey(server);
        const stream = await opened(family);
        await until(() => stream.comments.length >= 3, 'three heartbeats');

        expect(stream.comments.slice(0, 3)).to.equal(['heartbeat', 'heartbeat', 'heartbeat']);
        expect(stream.text).to.include('\n\n: heartbeat\n\n');
        expect(stream.events).to.equal([]);
        stream.close();
    });

    it('refuses one stream more than the policy allows a key, with 429 and Retry-After', async () => {

        const family = await familyWithKey(server);
        const open = [await opened(family), await opened(family)];

        const refused = await RawStream.open(server, family.key);
        expect(refused.statusCode).to.equal(429);
        expect(refused.response.headers['retry-after']).to.equal('3');
        await refused.end();
        expect(JSON.parse(refused.text)).to.include({ code: 'rate_limited' });

        // Another key of the family has a share of its own; a closed stream frees its place.
        const other = await opened(family, await anotherKey(server, family.familyLongId, { resources: ['persons'] }));
        open[0].close();
        await until(() => server.plugins.stream.openStreams() === 2, 'the closed stream to be released');
        const again = await opened(family);
        [other, open[1], again].forEach((stream) => stream.close());
    });

    it('disconnects a client that cannot keep up, with reason overflow, after what it had been sent', async () => {

        const family = await familyWithKey(server);
        const stream = await opened(family);
        // Live once its first event arrives.
        expectSuccess(await family.inject('POST', '/api/v1/persons', newPerson), 201);
        const [first] = await stream.nextChanges(1);
        stream.pause();

        // Announce far more than the socket buffers and the policy's buffer hold, as a burst of writes would.
        const { changeBus } = server.app.services;
        const firstId = 1_000_000_000;
        let nextId = firstId;
        for (let batches = 0; batches < 5000 && server.plugins.stream.openStreams() > 0; ++batches) {
            const events = Array.from({ length: 20 }, () => ({ id: nextId++, resource: 'persons', action: 'updated' as const, record_id: 'per_flooded', family_long_id: family.familyLongId, revision: 2, occurred_at: new Date().toISOString() }));
            const batch: ChangeBatch = { family_long_id: family.familyLongId, previous_id: batches === 0 ? Number(first.id) : events[0].id - 1, events };
            changeBus.publish(batch);
            await new Promise((resolve) => setImmediate(resolve));
        }

        await until(() => server.plugins.stream.openStreams() === 0, 'the stream to be closed');
        stream.resume();
        const last = await stream.eventNamed('close');
        await stream.end();

        expect(last.data.code).to.equal('overflow');
        expect(stream.events.at(-1)).to.shallow.equal(last);
        // Everything before the close is the flood's beginning, in order and complete: the client resumes after the last of it.
        const ids = stream.changes.slice(1).map((event) => Number(event.id));
        expect(ids.length).to.be.above(MAX_BUFFERED_EVENTS);
        expect(ids).to.equal(Array.from({ length: ids.length }, (_, index) => firstId + index));
    });

});
