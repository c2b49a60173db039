import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { ConfigError, configFromEnvironment } from '../../../lib/config';
import { accepts } from '../../helpers/ports';
import { familyWithKey, testServer, type FamilyFixture } from '../../helpers/server';
import { openedStream } from '../stream/client';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

/** One sample of the scrape's text: `name{labels} value`, its value, or undefined when it has none. */
function sampleOf(scrape: string, sample: string): number | undefined {

    const line = scrape.split('\n').find((candidate) => candidate.startsWith(`${sample} `));
    return line === undefined ? undefined : Number(line.slice(sample.length + 1));
}

const requestCount = (method: string, route: string, status: number) => `family_records_http_request_duration_seconds_count{method="${method}",route="${route}",status="${status}"}`;

describe('Prometheus metrics (METRICS_PORT)', () => {

    let server: Server;
    let family: FamilyFixture;
    const scrapeUrl = () => `http://127.0.0.1:${server.plugins.metrics.port()!}/metrics`;
    const scrape = async () => {

        const response = await fetch(scrapeUrl());
        expect(response.status).to.equal(200);
        expect(response.headers.get('content-type')).to.equal('text/plain; version=0.0.4; charset=utf-8');
        return response.text();
    };

    before(async () => {

        server = await testServer({ env: { METRICS_PORT: '0' } });
        await server.start();
        family = await familyWithKey(server);
    });

    after(async () => {

        if (server.info.started) {
            await server.stop();
        }
    });

    it('counts and times every answered request by method, route pattern and status, naming no record, family or key', async () => {

        const before = await scrape();
        const person = await family.inject('POST', '/api/v1/persons', { first_name: 'Ada', last_name: 'Lind' });
        const id = JSON.parse(person.payload).data.id;
        for (const path of ['/api/v1/persons', '/api/v1/persons', `/api/v1/persons/${id}`, '/api/v1/persons/per_AAAAAAAAAAAAAAAAAAAA']) {
            await fetch(`${server.info.uri}${path}`, { headers: { authorization: `Bearer ${family.key}` } });
        }

        await fetch(`${server.info.uri}/api/v1/persons`);
        await fetch(`${server.info.uri}/no/such/page`);
        const after = await scrape();

        const counted = (method: string, route: string, status: number) => (sampleOf(after, requestCount(method, route,
            status)) ?? 0) - (sampleOf(before, requestCount(method, route, status)) ?? 0);
        expect(counted('GET', '/api/v1/persons', 200)).to.equal(2);
        expect(counted('GET', '/api/v1/persons/{id}', 200)).to.equal(1);
        expect(counted('GET', '/api/v1/persons/{id}', 404)).to.equal(1);
        expect(counted('GET', '/api/v1/persons', 401)).to.equal(1);
        expect(counted('GET', '/{p*}', 404)).to.equal(1);
        expect(counted('POST', '/api/v1/persons', 201)).to.equal(1);
        expect(sampleOf(after, 'family_records_http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/api/v1/persons",status="200"}')).to.exist();

        for (const secret of [family.familyLongId, family.key, family.keyId, id, 'no/such/page']) {
            expect(after).to.not.contain(secret);
        }
    });

    it('has the process\'s own metrics: CPU, memory, event loop lag, garbage collection', async () => {

        const text = await scrape();
        for (const name of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_p99_seconds', 'nodejs_heap_size_used_bytes']) {
            expect(sampleOf(text, name), name).to.be.a.number();
        }

        expect(text).to.contain('nodejs_gc_duration_seconds');
    });

    it('counts the change streams open on this instance', async () => {

        const before = sampleOf(await scrape(), 'family_records_change_streams_open')!;
        const stream = await openedStream(server, family);
        expect(sampleOf(await scrape(), 'family_records_change_streams_open')).to.equal(before + 1);
        stream.response.destroy();
    });

    it('counts the webhooks\' deliveries waiting and retrying, and endpoints failing or given up on, read from the database', async () => {

        const { WebhookEndpoint, WebhookDelivery, ChangeEvent } = server.app.services.models;
        const gauges = ['pending', 'retrying'].map((state) => `family_records_webhook_deliveries_${state}`).concat(['failing', 'disabled_by_service'].map((state) => `family_records_webhook_endpoints_${state}`));
        const read = async () => {

            const text = await scrape();
            return gauges.map((gauge) => sampleOf(text, gauge)!);
        };

        const before = await read();
        // Stored state, as the service leaves it, for endpoints of history, which this family never changes: no
        // event is queued for them, and the deliveries below are due in an hour, so no worker touches any of it.
        const newestEvent = Number(await ChangeEvent.max('id') ?? 0);
        const endpoint = (id: string, fields: Record<string, unknown>) => WebhookEndpoint.create({
            id, family_long_id: family.familyLongId, url: 'https://hooks.example.com/family', resources: ['history'],
            active: false, secret_encrypted: 'unused', secret_last_four: 'abcd', created_after_event_id: newestEvent, created_by: 'test', ...fields
        });
        const delivery = (id: string, status: 'pending' | 'delivered', attempts: number) => WebhookDelivery.create({
            id, endpoint_id: 'whe_metricstest0000000001', family_long_id: family.familyLongId, event_id: null,
            event_type: 'ping', payload: '{}', status, attempts, next_attempt_at: status === 'pending' ? new Date(Date.now() + 3600_000) : null
        });
        const endpointIds = ['whe_metricstest0000000001', 'whe_metricstest0000000002', 'whe_metricstest0000000003'];
        try {
            await endpoint(endpointIds[0], { disabled_by: 'system', disabled_reason: 'failing for 3 days' });
            await endpoint(endpointIds[1], { disabled_by: 'usr_manager' });
            await endpoint(endpointIds[2], { active: true, failing_since: new Date() });
            await delivery('whd_metricstest0000000001', 'pending', 0);
            await delivery('whd_metricstest0000000002', 'pending', 3);
            await delivery('whd_metricstest0000000003', 'delivered', 1);

            const after = await read();
            expect(after.map((value, index) => value - before[index])).to.equal([2, 1, 1, 1]);
        }
        finally {
            // The PostgreSQL run shares its database between test files: leave nothing for another one's counts.
            await WebhookEndpoint.destroy({ where: { id: endpointIds } });
        }
    });

    it('answers only GET and HEAD /metrics on its port, and the service\'s own port has no /metrics', async () => {

        expect((await fetch(scrapeUrl().replace('/metrics', '/'))).status).to.equal(404);
        expect((await fetch(scrapeUrl(), { method: 'POST' })).status).to.equal(404);
        const head = await fetch(scrapeUrl(), { method: 'HEAD' });
        expect(head.status).to.equal(200);
        expect(await head.text()).to.equal('');
        expect((await fetch(`${server.info.uri}/metrics`)).status).to.equal(404);
    });

    it('stops listening when the server stops', async () => {

        const port = server.plugins.metrics.port()!;
        await server.stop();
        expect(server.plugins.metrics.port()).to.be.undefined();
        expect(await accepts(port)).to.be.false();
    });
});

describe('METRICS_PORT and a server that is not started (the CLI)', () => {

    it('opens no listener: a CLI command in the instances\' environment takes no port', async () => {

        const server = await testServer({ env: { METRICS_PORT: '0' } });
        try {
            expect(Object.keys(server.registrations)).to.include('metrics');
            expect(server.plugins.metrics.port()).to.be.undefined();
        }
        finally {
            await server.stop();
        }
    });
});

describe('METRICS_PORT unset', () => {

    it('registers no metrics plugin and opens no listener', async () => {

        const server = await testServer();
        try {
            await server.start();
            expect(Object.keys(server.registrations)).to.not.include('metrics');
        }
        finally {
            await server.stop();
        }
    });

    it('stops start-up on a port that is no port, or a METRICS_HOST that is no host', () => {

        expect(() => configFromEnvironment({ METRICS_PORT: '70000' })).to.throw(ConfigError, /"METRICS_PORT" must be less than or equal to 65535/);
        expect(() => configFromEnvironment({ METRICS_PORT: 'nine' })).to.throw(ConfigError, /"METRICS_PORT" must be a number/);
        expect(() => configFromEnvironment({ METRICS_PORT: '9100', METRICS_HOST: 'not a host' })).to.throw(ConfigError, /"METRICS_HOST" must be a host name or an IP address to listen on/);
        expect(configFromEnvironment({ METRICS_PORT: '9100' }).metrics).to.equal({ host: '127.0.0.1', port: 9100 });
    });
});
