import type { ResponseObject, ResponseToolkit } from '@hapi/hapi';

import type { EventStream, LogBatch, StreamPacing } from './event-stream';
import type { StreamHub } from './hub';

/**
 * Admits a stream to its hub (429 past `maxPerHolder`), decides where it starts, then answers
 * with its body, written from then on. Listening comes before reading the change log, so
 * nothing committed in between is lost.
 */
export async function openEventStream<Batch extends LogBatch>(h: ResponseToolkit, hub: StreamHub<Batch>, stream: EventStream<Batch>,
    maxPerHolder: number, pacing: StreamPacing): Promise<ResponseObject> {

    await hub.add(stream, maxPerHolder, Math.max(1, Math.ceil(pacing.retry_ms / 1000)));
    await stream.start();

    return h.response(stream.body)
        .type('text/event-stream')
        .header('Cache-Control', 'no-cache')
        .header('Connection', 'keep-alive')
        // nginx would otherwise hold events back in its buffer.
        .header('X-Accel-Buffering', 'no');
}
