/*
 * One slice of load, sent from a worker thread so the load generator gets its own core.
 * Outside the main thread autocannon hands back its raw result (histograms encoded), which
 * the main thread merges across the slices of a target with autocannon.aggregateResult().
 */
import { parentPort, workerData } from 'worker_threads';

import autocannon from 'autocannon';

autocannon(workerData as autocannon.Options).then(
    (result) => parentPort!.postMessage({ result }),
    (error: Error) => parentPort!.postMessage({ error: error.message })
);
