import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { testRedisUrl, testVariant } from '../../helpers/server';
import { RawStream, until } from '../stream/client';

export { deviceToken } from '../../helpers/messaging-api';

/** Opens GET /messaging/v1/stream over real HTTP; resolves as soon as its headers arrive (any status). */
export function openRecovery(server: Server, token: string, options: { headers?: Record<string, string>; query?: string } = {}): Promise<RawStream> {

    return RawStream.open(server, token, { ...options, path: '/messaging/v1/stream' });
}

/** A recovery stream answered 200 and past its first event (`ready`, or `reset`): ready for changes. */
export async function openedRecovery(server: Server, token: string, options: { headers?: Record<string, string>; query?: string } = {}): Promise<RawStream> {

    const stream = await openRecovery(server, token, options);
    expect(stream.statusCode).to.equal(200);
    await until(() => stream.events.length > 0, `the first event (received: ${stream.text})`);
    return stream;
}

/** The changes a stream received (not ready, reset or close). */
export function changesOf(stream: RawStream): Array<{ id?: string; event: string; data: any }> {

    return stream.events.filter((event) => !['ready', 'reset', 'close'].includes(event.event));
}

/** Waits until the stream holds `count` changes; returns them. */
export async function receivedChanges(stream: RawStream, count: number): Promise<Array<{ id?: string; event: string; data: any }>> {

    await until(() => changesOf(stream).length >= count, `${count} changes (have ${changesOf(stream).length}: ${stream.text.slice(-600)})`);
    return changesOf(stream).slice(0, count);
}

/** Waits for the stream's last event, `close`, and the end of the connection; returns the event's data. */
export async function closedWith(stream: RawStream): Promise<{ code: string; message: string }> {

    const last = await stream.eventNamed('close');
    await stream.end();
    expect(stream.events.at(-1)).to.shallow.equal(last);
    return last.data;
}

/** The name of a suite on one aspect of the recovery stream, with the stores it runs on. */
export function recoverySuiteTitle(aspect: string): string {

    return `GET /messaging/v1/stream: ${aspect} (${testVariant}${testRedisUrl ? ' + redis' : ''})`;
}
