import { JobFailures } from '../../lib/job-failures';
import type { WebhookEndpoint } from '../../models/webhook-endpoint';
import { attemptDelivery, type AttemptOutcome } from './attempt';
import { claimDue, type ClaimedDelivery } from './claim';
import type { WebhooksContext } from './context';
import { fanOut } from './fan-out';
import { recordOutcomes } from './record';

// Outcomes are written in batches: one transaction for many attempts.
const flushEvery = 100;
const flushAfterMs = 20;

/**
 * The delivery loop of one instance: fans change events out into the queue, claims due
 * deliveries (at most the policy's concurrency in flight), attempts them, and writes
 * the outcomes in batches. Woken by new changes and by the sweep; idle otherwise.
 */
export class DeliveryWorker {

    private running = false;
    private filling = false;
    private fillAgain = false;
    private fanOutNeeded = true;
    private readonly inFlight = new Map<string, ClaimedDelivery>();
    private outcomes: AttemptOutcome[] = [];
    private flushTimer?: NodeJS.Timeout;
    private flushing: Promise<void> = Promise.resolve();
    private idle?: () => void;
    private readonly fillFailures: JobFailures;
    private readonly recordFailures: JobFailures;

    constructor(private readonly context: WebhooksContext) {

        this.fillFailures = new JobFailures(context.log, ['webhooks'], 'The webhook delivery worker');
        // Unrecorded attempts are attempted again once their lease runs out (at least once).
        this.recordFailures = new JobFailures(context.log, ['webhooks'], 'Recording webhook delivery attempts');
    }

    start(): void {

        this.running = true;
        this.wake(true);
    }

    /** Stops claiming, lets attempts under way finish and writes every outcome down. */
    async stop(): Promise<void> {

        this.running = false;
        if (this.inFlight.size > 0 || this.filling) {
            await new Promise<void>((resolve) => {

                this.idle = resolve;
            });
        }

        await this.flush();
    }

    /** Looks for work: after new changes (`changes`: fan out first) or when a sweep or a finished attempt makes room. */
    wake(changes = false): void {

        this.fanOutNeeded ||= changes;
        if (!this.running) {
            return;
        }

        if (this.filling) {
            this.fillAgain = true;
            return;
        }

        void this.fill();
    }

    private async fill(): Promise<void> {

        this.filling = true;
        try {
            do {
                this.fillAgain = false;
                if (this.fanOutNeeded) {
                    this.fanOutNeeded = false;
                    while (this.running && await fanOut(this.context)) {
                        // a full batch: more may be waiting
                    }
                }

                await this.claimWhileRoom();
            } while (this.fillAgain && this.running);

            this.fillFailures.succeeded();
        }
        catch (error) {
            this.fillFailures.failed(error);
        }
        finally {
            this.filling = false;
            this.checkIdle();
        }
    }

    private async claimWhileRoom(): Promise<void> {

        const concurrency = this.context.policyStore.current().webhooks.delivery.concurrency;
        while (this.running && this.inFlight.size < concurrency) {
            const claimed = await claimDue(this.context, concurrency - this.inFlight.size);
            if (claimed.length === 0) {
                return;
            }

            const endpoints = await this.context.models.WebhookEndpoint.findAll({ where: { id: [...new Set(claimed.map((delivery) => delivery.endpoint_id))] } });
            const endpointById = new Map(endpoints.map((endpoint) => [endpoint.id, endpoint]));
            for (const delivery of claimed) {
                this.attempt(delivery, endpointById.get(delivery.endpoint_id));
            }
        }
    }

    private attempt(delivery: ClaimedDelivery, endpoint: WebhookEndpoint | undefined): void {

        if (!endpoint) {
            return;        // removed since the claim: its deliveries went with it
        }

        this.inFlight.set(delivery.id, delivery);
        attemptDelivery(this.context, delivery, endpoint, 'queue')
            .then((outcome) => this.record(outcome))
            .finally(() => {

                this.inFlight.delete(delivery.id);
                this.checkIdle();
                // Claim more once half the room is free, not once per finished attempt.
                const concurrency = this.context.policyStore.current().webhooks.delivery.concurrency;
                if (this.inFlight.size <= concurrency / 2) {
                    this.wake();
                }
            });
    }

    private record(outcome: AttemptOutcome): void {

        this.outcomes.push(outcome);
        if (this.outcomes.length >= flushEvery) {
            void this.flush();
        }
        else {
            this.flushTimer ??= setTimeout(() => void this.flush(), flushAfterMs);
        }
    }

    /** Writes the outcomes gathered so far; one write at a time, in order. */
    private flush(): Promise<void> {

        clearTimeout(this.flushTimer);
        this.flushTimer = undefined;
        const batch = this.outcomes;
        this.outcomes = [];
        this.flushing = this.flushing.then(() => this.recordFailures.run(() => recordOutcomes(this.context, batch)));

        return this.flushing;
    }

    private checkIdle(): void {

        if (!this.running && !this.filling && this.inFlight.size === 0) {
            this.idle?.();
            this.idle = undefined;
        }
    }
}
