import Boom from '@hapi/boom';
import type { Request, Server } from '@hapi/hapi';
import { Histogram, type Registry } from 'prom-client';

/** From a quick answer to a slow export; a change stream, open for hours, counts in +Inf. */
const bucketsInSeconds = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The status a request was answered with (499 when the client left first, as hapi records it). */
function statusOf(request: Request): number {

    const response = request.response;
    return Boom.isBoom(response) ? response.output.statusCode : response?.statusCode ?? 0;
}

/**
 * Every answered request in one histogram, by method, route and status. The route is hapi's path
 * pattern (`/api/v1/persons/{id}`, `/{p*}` for a path no route has), never the path itself: the
 * labels stay few, and no record id, family or key ever appears in them.
 */
export function observeRequests(server: Server, registry: Registry): void {

    const durations = new Histogram({
        name: 'family_records_http_request_duration_seconds',
        help: 'Time from a request\'s arrival to the end of its answer, by method, route pattern and status.',
        labelNames: ['method', 'route', 'status'] as const,
        buckets: bucketsInSeconds,
        registers: [registry]
    });

    server.events.on('response', (request: Request) => {

        const seconds = ((request.info.responded || Date.now()) - request.info.received) / 1000;
        durations.observe({ method: request.method.toUpperCase(), route: request.route.path, status: statusOf(request) }, seconds);
    });
}
