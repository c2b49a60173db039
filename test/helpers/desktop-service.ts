import Fs from 'fs';
import Path from 'path';

import type { Server } from '@hapi/hapi';
import { DesktopClient } from 'family-records-desktop';

import { approveDeviceRequest } from '../../lib/accounts/devices';
import { createFamily } from '../../lib/accounts/families';
import type { User } from '../../models/user';
import { siteAccount } from '../plugins/site/client';
import { connectedDevice } from './devices';
import { editPolicyFile } from './policy-files';
import { freePort } from './ports';
import { copyPolicies, scratchDirectory, testServer } from './server';
import { tcpRelay, type TcpRelay } from './tcp-relay';

/** A signed-up user with a password of their own, as the site's sign-in takes it. */
export interface DesktopMember {
    user: User;
    email: string;
    password: string;
}

/** The first tokens of a connected device, as the desktop client keeps them (expires_at in ms since the epoch). */
export interface DeviceTokens {
    access_token: string;
    refresh_token: string;
    expires_at: number;
    scope: string;
}

/** A family of its own on the service, whose first member is its manager. */
export interface DesktopFamily {
    familyLongId: string;
    member(options?: { role?: 'manager' | 'member' }): Promise<DesktopMember>;
}

export interface DesktopService {
    server: Server;
    /** The address the client is given: the relay's, which goOffline() cuts. */
    baseUrl: string;
    relay: TcpRelay;
    /** A member of the family every member() of this service shares (the first one its manager). */
    member(options?: { role?: 'manager' | 'member' }): Promise<DesktopMember>;
    /** Another family, for tests that must not see the shared family's conversations. */
    family(): Promise<DesktopFamily>;
    /** A device of `user` connected through the services (approved and exchanged without the OAuth endpoints). */
    connectDevice(user: User, fields?: { scope?: string; device_name?: string }): Promise<DeviceTokens>;
    /** Approves a user code a client shows, as its user does on the site. */
    approve(userCode: string, user: User): Promise<void>;
    /** The client's address stops answering: open connections reset, new ones refused. */
    goOffline(): Promise<void>;
    goOnline(): Promise<void>;
    stop(): Promise<void>;
}

/**
 * A real service over loopback HTTP, behind a TCP relay so that a test can take it offline and back. Its policies ask
 * for a device-flow poll every second and keep the OAuth endpoints' limit per address out of the way;
 * PUBLIC_BASE_URL is the relay's address, so discovery names the endpoints the client can reach.
 */
export async function desktopService(): Promise<DesktopService> {

    const policiesDir = copyPolicies();
    editPolicyFile(policiesDir, 'messaging.yaml', 'interval_seconds: 5', 'interval_seconds: 1');
    editPolicyFile(policiesDir, 'messaging.yaml', 'limit: 60', 'limit: 1000000');
    const port = await freePort();
    const relay = await tcpRelay(port);
    const baseUrl = `http://127.0.0.1:${relay.port}`;
    const server = await testServer({ policiesDir, env: { PORT: String(port), HOST: '127.0.0.1', PUBLIC_BASE_URL: baseUrl } });
    await server.start();

    const accounts = server.app.services.accounts;
    const newFamily = async (): Promise<DesktopFamily> => {

        const family = await createFamily(accounts, { name: 'Desktop family', plan: 'family' });
        let members = 0;
        return {
            familyLongId: family.family_long_id,
            member: (options = {}) => siteAccount(server, { role: options.role ?? (members++ === 0 ? 'manager' : 'member'), familyLongId: family.family_long_id })
        };
    };

    const shared = await newFamily();
    return {
        server,
        baseUrl,
        relay,
        member: shared.member,
        family: newFamily,
        async connectDevice(user, fields = {}) {

            const answer = await connectedDevice(server, user, fields);
            return { access_token: answer.access_token, refresh_token: answer.refresh_token, expires_at: Date.now() + answer.expires_in * 1000, scope: answer.scope };
        },
        async approve(userCode, user) {

            await approveDeviceRequest(accounts, userCode, user);
        },
        goOffline: () => relay.cut(),
        goOnline: () => relay.restore(),
        async stop() {

            await relay.close();
            await server.stop();
        }
    };
}

/** A fresh scratch directory for FAMILY_RECORDS_DESKTOP_HOME: one per test, so profiles never meet. */
export function desktopHome(): string {

    const home = Path.join(scratchDirectory(), 'desktop-home');
    Fs.mkdirSync(home, { mode: 0o700 });
    return home;
}

/**
 * A desktop client of `user` connected through the device flow as a person does it, the code approved as on the site,
 * in a fresh FAMILY_RECORDS_DESKTOP_HOME (set in process.env) with its keys in the key file.
 */
export async function connectDesktopClient(service: DesktopService, member: DesktopMember, options: { deviceName?: string } = {}): Promise<DesktopClient> {

    process.env.FAMILY_RECORDS_DESKTOP_HOME = desktopHome();
    process.env.FAMILY_RECORDS_DESKTOP_KEY_STORE = 'file';
    let approval: Promise<void> = Promise.resolve();
    const client = await DesktopClient.connect(service.baseUrl, {
        deviceName: options.deviceName ?? 'Test laptop',
        onCode(code) {

            approval = service.approve(code.user_code, member.user);
        }
    });
    await approval;
    return client;
}
