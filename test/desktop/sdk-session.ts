import ChildProcess from 'child_process';
import Fs from 'fs';
import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';
import { MessagingClient, refreshTokens, revokeToken, Session, SignedOutError, type TokenSet } from 'family-records-desktop';

import { familyMember, oauthClientServer } from '../helpers/devices';
import { scratchDirectory, testVariant } from '../helpers/server';
import { sdkClient } from './sdk-fixtures';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

/** A process of the client: a Session over a token file, asked for an access token; prints it. */
const refreshingProcess = `
const Fs = require('fs');
const { discover, Session } = require('family-records-desktop');
const [file, baseUrl] = process.argv.slice(1);
const storage = {
    lockFile: file + '.lock-target',
    read: async () => JSON.parse(Fs.readFileSync(file, 'utf8')),
    write: async (tokens) => {
        Fs.writeFileSync(file + '.' + process.pid, JSON.stringify(tokens), { mode: 0o600 });
        Fs.renameSync(file + '.' + process.pid, file);
    }
};
discover(baseUrl).then((metadata) => new Session(metadata, storage).accessToken())
    .then((token) => process.stdout.write(token), (error) => { console.error(error); process.exit(1); });
`;

function runProcess(file: string, baseUrl: string): Promise<string> {

    return new Promise((resolve, reject) => {

        ChildProcess.execFile(process.execPath, ['-e', refreshingProcess, file, baseUrl], { cwd: Path.join(__dirname, '../../..') }, (error, stdout, stderr) => {

            return error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout);
        });
    });
}

describe(`the desktop SDK's session: one refresh at a time across processes (${testVariant})`, () => {

    let server: Server;
    let baseUrl: string;
    let tokenRequests = 0;

    before(async () => {

        ({ server, baseUrl } = await oauthClientServer());
        server.events.on('response', (request) => {

            if (request.path === '/oauth/token') {
                ++tokenRequests;
            }
        });
    });

    after(() => server.stop());

    const meStatus = async (accessToken: string) => (await fetch(`${baseUrl}/messaging/v1/me`, { headers: { authorization: `Bearer ${accessToken}` } })).status;

    it('lets two processes needing a fresh token at once refresh once, under the lock: both end with working tokens and the device stays connected', async () => {

        const { storage, metadata } = await sdkClient(server, baseUrl, await familyMember(server));
        const file = Path.join(scratchDirectory(), 'tokens.json');
        const expired: TokenSet = { ...storage.tokens!, expires_at: Date.now() - 1000 };
        Fs.writeFileSync(file, JSON.stringify(expired), { mode: 0o600 });
        Fs.writeFileSync(`${file}.lock-target`, '');

        tokenRequests = 0;
        const [first, second] = await Promise.all([runProcess(file, baseUrl), runProcess(file, baseUrl)]);
        const stored = JSON.parse(Fs.readFileSync(file, 'utf8')) as TokenSet;
        expect(tokenRequests).to.equal(1);
        expect(first).to.equal(stored.access_token);
        expect(second).to.equal(stored.access_token);
        expect(stored.refresh_token).to.not.equal(expired.refresh_token);
        expect(await meStatus(stored.access_token)).to.equal(200);

        // Not taken for a stolen copy: the grant goes on refreshing.
        const next = await refreshTokens(metadata, stored.refresh_token);
        expect(await meStatus(next.access_token)).to.equal(200);
    });

    it('takes the token another process refreshed after a 401, without refreshing again', async () => {

        const { storage, metadata } = await sdkClient(server, baseUrl, await familyMember(server));
        const session = new Session(metadata, storage);
        const rejected = storage.tokens!.access_token;
        const elsewhere = await refreshTokens(metadata, storage.tokens!.refresh_token);
        await storage.write(elsewhere);

        tokenRequests = 0;
        expect(await session.refreshAfterRejection(rejected)).to.equal(elsewhere.access_token);
        expect(tokenRequests).to.equal(0);
        const renewed = await session.refreshAfterRejection(elsewhere.access_token);
        expect(renewed).to.not.equal(elsewhere.access_token);
        expect(tokenRequests).to.equal(1);
        expect(await meStatus(renewed)).to.equal(200);
    });

    it('is signed out once the device is revoked: the refresh refused, or a 401 after a fresh token', async () => {

        const { storage, metadata, client } = await sdkClient(server, baseUrl, await familyMember(server));
        expect((await client.me()).device.client_id).to.equal('family-records-desktop');
        await revokeToken(metadata, storage.tokens!.access_token);

        // The stored access token still looks fresh: the service refuses it, and the refresh after it.
        await expect(client.me()).to.reject(SignedOutError);
        await storage.write({ ...storage.tokens!, expires_at: Date.now() });
        await expect(new Session(metadata, storage).accessToken()).to.reject(SignedOutError);
        await expect(new MessagingClient(baseUrl, new Session(metadata, { ...storage, read: () => Promise.resolve(undefined) })).conversations()).to.reject(SignedOutError);
    });
});
