/*
 * A fixed number of GET requests over a few keep-alive connections, each connection sending its next
 * request when the last is answered. For the instruction counts, where the number of requests matters
 * more than the rate: autocannon runs for a time, not a count.
 */
import Http from 'http';
import { performance } from 'perf_hooks';

import type { Target } from './run';

export interface CountedLoad {
    seconds: number;
    latenciesMs: number[];
    statusCodes: Record<string, number>;
}

function get(target: Target, agent: Http.Agent): Promise<number> {

    return new Promise((resolve, reject) => {

        Http.get(target.url, { agent, headers: target.headers }, (response) => {

            response.resume();
            response.once('end', () => resolve(response.statusCode!));
            response.once('error', reject);
        }).once('error', reject);
    });
}

/** Loads one target; its connections stay open from one slice to the next, so no slice counts opening them. */
export class CountedLoader {

    private readonly agent: Http.Agent;

    constructor(private readonly target: Target, private readonly connections: number) {

        this.agent = new Http.Agent({ keepAlive: true, maxSockets: connections });
    }

    async slice(requests: number): Promise<CountedLoad> {

        const latenciesMs: number[] = [];
        const statusCodes: Record<string, number> = {};
        let sent = 0;
        const connection = async () => {

            while (sent < requests) {
                ++sent;
                const start = performance.now();
                const status = await get(this.target, this.agent);
                latenciesMs.push(performance.now() - start);
                statusCodes[status] = (statusCodes[status] ?? 0) + 1;
            }
        };

        const start = performance.now();
        await Promise.all(Array.from({ length: this.connections }, connection));
        return { seconds: (performance.now() - start) / 1000, latenciesMs, statusCodes };
    }

    stop(): void {

        this.agent.destroy();
    }
}
