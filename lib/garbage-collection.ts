import V8 from 'v8';

/**
 * Turns off V8's allocation-site pretenuring for this process. With it on, some server processes decide early, from a
 * burst of requests in flight, to make per-request objects in the old generation, and then stay slower for their whole
 * life (bench/README.md, "Findings the code relies on"). What the service keeps for long (caches, policies) is small,
 * so copying it once more between generations costs nothing to speak of.
 *
 * Set in code: Node.js refuses the flag in NODE_OPTIONS, and one on the command line would not follow every way the
 * service is started (`npm start`, the systemd unit, `family-records serve`).
 */
export function turnOffAllocationSitePretenuring(): void {

    V8.setFlagsFromString('--no-allocation-site-pretenuring');
}
