import Fs from 'fs';
import Path from 'path';

import type { Server } from '@hapi/hapi';
import YAML from 'yaml';

import type { WebhooksPolicy } from '../../../../plugins/webhooks/policy';
import type { Log } from '../../../../lib/logger';
import type { Resolver } from '../../../../plugins/webhooks/resolver';
import { copyPolicies, familyWithKey, testServer, type FamilyFixture } from '../../../helpers/server';
import { receiverHost, TestReceiver } from './receiver';

/** A resolver answering from a table (a function: the answer may change between calls); an unknown name does not resolve. */
export function scriptedResolver(answers: Record<string, string | string[] | (() => string | string[])>): Resolver {

    return (hostname) => {

        const answer = answers[hostname];
        if (answer === undefined) {
            return Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }));
        }

        const addresses = [typeof answer === 'function' ? answer() : answer].flat();
        return Promise.resolve(addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
    };
}

/**
 * A copy of the policies where the receiver is a valid destination (loopback, its port)
 * and retries and timeouts are short enough for a test; `edit` changes more.
 */
export function receiverPolicies(receiver: TestReceiver, edit: (policy: WebhooksPolicy) => void = () => undefined): string {

    const directory = copyPolicies();
    const file = Path.join(directory, 'webhooks.yaml');
    const policy = YAML.parse(Fs.readFileSync(file, 'utf8')) as WebhooksPolicy & { _format_version: string };
    policy.destinations.allowed_ranges = ['unicast', 'loopback'];
    policy.destinations.ports = [443, receiver.port];
    policy.destinations.blocked_hosts = [];
    policy.delivery = { ...policy.delivery, connect_timeout_ms: 2000, response_timeout_ms: 1000, lease_seconds: 5 };
    policy.retries = { schedule_seconds: [0, 0.3, 0.3, 0.3], jitter: 0, retry_after_max_seconds: 3 };
    edit(policy);
    Fs.writeFileSync(file, YAML.stringify(policy));
    return directory;
}

/**
 * A test server whose deliveries trust the receiver's CA and resolve receiver.test to it;
 * started (the worker runs) unless `start` is false (a server that only writes).
 */
export async function webhooksServer(
    receiver: TestReceiver,
    options: { policiesDir?: string; shareWith?: Server; resolve?: Resolver; start?: boolean; log?: Log } = {}
): Promise<Server> {

    const server = await testServer({ policiesDir: options.policiesDir ?? receiverPolicies(receiver), shareWith: options.shareWith, log: options.log });
    server.plugins.webhooks.useTestTransport({ ca: receiver.ca, resolve: options.resolve ?? scriptedResolver({ [receiverHost]: '127.0.0.1' }) });
    if (options.start !== false) {
        await server.start();
    }

    return server;
}

/** A receiver and a started webhooks server delivering to it, for a suite whose tests share both (see stopReceiverAndServer). */
export async function receiverAndServer(): Promise<{ receiver: TestReceiver; server: Server }> {

    const receiver = await TestReceiver.start();
    return { receiver, server: await webhooksServer(receiver) };
}

/** Stops what receiverAndServer started: the server first, so no delivery is under way when the receiver closes. */
export async function stopReceiverAndServer({ receiver, server }: { receiver: TestReceiver; server: Server }): Promise<void> {

    await server.stop();
    await receiver.close();
}

/** A family with a key and one endpoint at the receiver for `resources` (default persons). */
export async function familyWithEndpoint(server: Server, receiver: TestReceiver, resources = ['persons']): Promise<FamilyFixture & { endpointId: string; secret: string }> {

    const family = await familyWithKey(server);
    const { endpoint, secret } = await server.plugins.webhooks.createEndpoint(family.familyLongId, { url: receiver.url(), resources }, 'test');
    return { ...family, endpointId: endpoint.id, secret };
}

/** Creates a person through the API: one `persons.created` change event. */
export async function createPerson(family: FamilyFixture, firstName = 'Ada'): Promise<string> {

    const response = await family.inject('POST', '/api/v1/persons', { first_name: firstName, last_name: 'Lovelace' });
    if (response.statusCode !== 201) {
        throw new Error(`creating a person failed: ${response.payload}`);
    }

    return (response.result as { data: { id: string } }).data.id;
}

/** Polls until `check` holds; fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined | null | false>, timeoutMs = 10_000): Promise<T> {

    const deadline = Date.now() + timeoutMs;
    for (;;) {
        const value = await check();
        if (value) {
            return value;
        }

        if (Date.now() > deadline) {
            throw new Error(`condition not met within ${timeoutMs} ms`);
        }

        await new Promise((resolve) => setTimeout(resolve, 50));
    }
}
