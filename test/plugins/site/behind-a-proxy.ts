import Crypto from 'crypto';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { createFamily } from '../../../lib/accounts/families';
import { editedPolicies } from '../../helpers/policy-files';
import { testServer } from '../../helpers/server';
import { cookieHeader, formBody, keepCookies, siteAccount, type Form } from './client';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

/** An address of the benchmarking range (198.18.0.0/15) of its own per call, so no two clients share a throttle counter. */
function randomClient(): string {

    const bytes = Crypto.randomBytes(3);
    return `198.${18 + (bytes[0] & 1)}.${bytes[1]}.${bytes[2]}`;
}

/** A browser reaching the listening server over real HTTP on loopback, through a proxy that sends X-Forwarded-For. */
class ProxiedBrowser {

    private readonly cookies = new Map<string, string>();

    constructor(private readonly server: Server, readonly forwardedFor: string) {}

    async signIn(email: string, password: string): Promise<Response> {

        if (!this.cookies.has('crumb')) {
            await this.send('GET', '/login');
        }

        return this.send('POST', '/login', { crumb: this.cookies.get('crumb')!, email, password });
    }

    private async send(method: string, path: string, form?: Form): Promise<Response> {

        const headers: Record<string, string> = { 'x-forwarded-for': this.forwardedFor };
        if (this.cookies.size > 0) {
            headers.cookie = cookieHeader(this.cookies);
        }

        if (form) {
            headers['content-type'] = 'application/x-www-form-urlencoded';
        }

        const response = await fetch(`${this.server.info.uri}${path}`, { method, headers, body: form && formBody(form), redirect: 'manual' });
        keepCookies(this.cookies, response.headers.getSetCookie());
        await response.arrayBuffer();
        return response;
    }
}

// The per-address limit made small (3 attempts), in a window of a length of its own: with Redis, the loopback address's
// counter is then neither another test's nor an earlier run's.
const smallAddressLimit = ['site.yaml', 'limit: 100\n    window_seconds: 900', `limit: 3\n    window_seconds: ${3000 + Crypto.randomInt(600)}`] as const;

async function startedServer(env: Record<string, string>): Promise<{ server: Server; familyLongId: string }> {

    const server = await testServer({ policiesDir: editedPolicies(...smallAddressLimit), env });
    await server.start();
    const family = await createFamily(server.app.services.accounts, { name: 'Proxied family', plan: 'family' });
    return { server, familyLongId: family.family_long_id };
}

/** Fails `limit` sign-ins through `browser`, each with another unknown email, so only the per-address counter fills. */
async function exhaustAddressLimit(server: Server, browser: ProxiedBrowser): Promise<void> {

    const limit = server.app.services.policyStore.current().site.sign_in_throttle.per_ip.limit;
    for (let attempt = 0; attempt < limit; ++attempt) {
        expect((await browser.signIn(`nobody-${attempt}-${browser.forwardedFor}@example.com`, 'guess')).status).to.equal(401);
    }
}

describe('the client address behind a trusted proxy (TRUSTED_PROXIES=127.0.0.1, over HTTP)', () => {

    let server: Server;
    let familyLongId: string;

    before(async () => {

        ({ server, familyLongId } = await startedServer({ TRUSTED_PROXIES: '127.0.0.1' }));
    });

    after(() => server.stop());

    it('gives each forwarded client its own sign-in limit: one client\'s failures lock nobody else out', async () => {

        expect(server.info.uri).to.startWith('http://127.0.0.1:');       // the proxy's address is loopback, as nginx's is
        const { email, password } = await siteAccount(server, { role: 'manager', familyLongId });
        const attacker = new ProxiedBrowser(server, randomClient());
        await exhaustAddressLimit(server, attacker);

        expect((await attacker.signIn(email, password)).status).to.equal(401);
        expect((await new ProxiedBrowser(server, randomClient()).signIn(email, password)).status).to.equal(302);
    });

    it('counts a client\'s attempts by the address the proxy appended, whatever it writes in front of it', async () => {

        const { email, password } = await siteAccount(server, { role: 'manager', familyLongId });
        const address = randomClient();
        await exhaustAddressLimit(server, new ProxiedBrowser(server, `10.0.0.1, ${address}`));

        // The same client, now claiming to be someone else left of what the proxy appends: still its own counter.
        expect((await new ProxiedBrowser(server, `${randomClient()}, ${address}`).signIn(email, password)).status).to.equal(401);
        // Someone else, claiming to be that client: their own.
        expect((await new ProxiedBrowser(server, `${address}, ${randomClient()}`).signIn(email, password)).status).to.equal(302);
    });

    it('records the forwarded address in the audit log and on the session', async () => {

        const { user, email, password } = await siteAccount(server, { role: 'manager', familyLongId });
        const address = randomClient();
        expect((await new ProxiedBrowser(server, `203.0.113.99, ${address}`).signIn(email, password)).status).to.equal(302);

        const { models } = server.app.services;
        const entry = await models.AuditEvent.findOne({ where: { actor_id: user.id, action: 'session.sign_in' } });
        expect(entry!.ip).to.equal(address);
        const session = await models.SiteSession.findOne({ where: { user_id: user.id } });
        expect(session!.ip).to.equal(address);
    });
});

describe('the client address without TRUSTED_PROXIES (over HTTP)', () => {

    let server: Server;
    let familyLongId: string;

    before(async () => {

        ({ server, familyLongId } = await startedServer({}));
    });

    after(() => server.stop());

    it('ignores X-Forwarded-For: the socket\'s address is the client, in the audit log and the sign-in limit', async () => {

        const { user, email, password } = await siteAccount(server, { role: 'manager', familyLongId });
        expect((await new ProxiedBrowser(server, randomClient()).signIn(email, password)).status).to.equal(302);
        const entry = await server.app.services.models.AuditEvent.findOne({ where: { actor_id: user.id, action: 'session.sign_in' } });
        expect(entry!.ip).to.equal('127.0.0.1');

        // Whatever each claims, every client is loopback here: one counter for all.
        await exhaustAddressLimit(server, new ProxiedBrowser(server, randomClient()));
        expect((await new ProxiedBrowser(server, randomClient()).signIn(email, password)).status).to.equal(401);
    });
});
