/*
 * The load generator of one target, in a worker thread so it gets its own core. The worker
 * lives as long as its target's measurement and runs one slice per message, so its own code is
 * compiled and warm from the warm-up slice on. Outside the main thread autocannon hands back its
 * raw result (histograms encoded), which the main thread merges across the slices of a target
 * with autocannon.aggregateResult().
 */
import { parentPort } from 'worker_threads';

import autocannon from 'autocannon';

parentPort!.on('message', (options: autocannon.Options) => {

    autocannon(options).then(
        (result) => parentPort!.postMessage({ result }),
        (error: Error) => parentPort!.postMessage({ error: error.message })
    );
});
