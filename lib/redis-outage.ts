import type { Log } from './logger';
import { answeredInTime, type RedisClient } from './redis';

/** While Redis is failing, how often it is asked (PING) whether it answers again. */
const probeIntervalMs = 1000;

/**
 * Whether Redis is failing the service now, for the parts that can go on without it (API-key
 * checks, rate limits). The first command that fails or times out starts the outage; from then on
 * requests go without Redis at once, none waits for it, until a PING (one a second, off the request
 * path) or a new connection finds it answering. The outage is logged once when it starts and once
 * when it ends, not once per request, which would bury every other line of the log.
 */
export class RedisOutage {
    private failingSince?: number;
    private probe?: NodeJS.Timeout;
    private interruptionCount = 0;

    constructor(private readonly client: RedisClient, private readonly log: Log, private readonly now: () => number = Date.now) {

        client.on('ready', () => {                          // connected again

            this.interruptionCount += 1;
            this.answered();
        });
        client.on('end', () => this.stopProbing());          // closed for good
    }

    get failing(): boolean {

        return this.failingSince !== undefined;
    }

    /**
     * Moves whenever Redis may have missed something since: an outage starts, or a connection is made again
     * (a Redis restarted without its data, a write that failed meanwhile). What was cached under an earlier count is stale.
     */
    get interruptions(): number {

        return this.interruptionCount;
    }

    failed(error: unknown): void {

        if (this.failingSince !== undefined) {
            return;
        }

        this.interruptionCount += 1;
        this.failingSince = this.now();
        this.log(['redis', 'error'], `Redis does not answer (${error instanceof Error ? error.message : String(error)}). Until it does, every request's API key is checked against the database, each instance counts rate limits in its own memory against the same limits, and change streams and webhooks hear of changes once it is back.`);
        this.probe = setInterval(() => void this.check(), probeIntervalMs).unref();
    }

    answered(): void {

        if (this.failingSince === undefined) {
            return;
        }

        const seconds = Math.round((this.now() - this.failingSince) / 1000);
        this.failingSince = undefined;
        this.stopProbing();
        this.log(['redis'], `Redis answers again, after ${seconds} s without it.`);
    }

    private async check(): Promise<void> {

        try {
            await answeredInTime(this.client.ping());
            this.answered();
        }
        catch {
            // Still failing: the next probe asks again.
        }
    }

    private stopProbing(): void {

        clearInterval(this.probe);
        this.probe = undefined;
    }
}
