import { changeEventData } from '../../lib/change-bus';
import type { ChangeEvent } from '../../models/change-event';

/** What a delivery carries: its X-Service-Event type and the JSON body every attempt sends. */
export interface Payload {
    type: string;
    body: string;
}

/**
 * A change event with exactly the data the stream sends (DESIGN.md §5: metadata only,
 * never the record), plus `type` as Standard Webhooks recommends.
 */
export function eventPayload(event: ChangeEvent): Payload {

    const type = `${event.resource}.${event.action}`;
    return { type, body: JSON.stringify({ type, ...changeEventData(event) }) };
}

/** The test delivery a manager sends to check an endpoint. */
export function pingPayload(familyLongId: string, endpointId: string, at: Date): Payload {

    return { type: 'ping', body: JSON.stringify({ type: 'ping', family_long_id: familyLongId, endpoint_id: endpointId, occurred_at: at.toISOString() }) };
}
