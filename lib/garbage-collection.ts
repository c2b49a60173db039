import V8 from 'v8';

/**
 * Turns off V8's allocation-site pretenuring for this process: objects are then always made in the young
 * generation, and only what survives two minor collections moves to the old one.
 *
 * Why: with it on, about one server process in eight (6 of 50 measured, bench/README.md) decides early on,
 * from what survived a collection while a burst of requests was in flight, to make some per-request objects
 * directly in the old generation. That process then stays about a third slower for its whole life: each minor
 * collection takes 5–7 ms instead of about 1 ms (it must follow every pointer from those old objects into the
 * young generation) and a full collection runs every few seconds. With it off, 0 of 52 processes did. What
 * the service keeps for long (caches, policies) is small, so copying it once more costs nothing measurable.
 *
 * A V8 flag, set before the service builds anything: Node.js refuses it in NODE_OPTIONS, and a flag on
 * the command line would not follow every way the service is started (`npm start`, the systemd unit,
 * `family-records serve`).
 */
export function turnOffAllocationSitePretenuring(): void {

    V8.setFlagsFromString('--no-allocation-site-pretenuring');
}
