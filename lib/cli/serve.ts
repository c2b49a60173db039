import type { Server } from '@hapi/hapi';

import { configFromEnvironment, type Config } from '../config';
import { seedDemoFamily } from '../demo';
import { deployment } from '../deployment';
import { turnOffAllocationSitePretenuring } from '../garbage-collection';
import { command } from './command';
import { demoInstructions } from './demo';
import { CliError } from './errors';

const stopTimeoutMilliseconds = 10_000;

/** The first SIGINT or SIGTERM stops gracefully (requests in flight get 10 s); a second one ends the process at once. */
function stopOnSignals(server: Server): void {

    const log = server.app.services.log;
    const onSignal = async (signal: NodeJS.Signals) => {

        process.removeListener('SIGINT', onSignal);
        process.removeListener('SIGTERM', onSignal);
        log(['server', 'info'], `${signal}: stopping`);
        try {
            await server.stop({ timeout: stopTimeoutMilliseconds });
            process.exit(0);
        }
        catch (error) {
            log(['server', 'error'], `stopping failed: ${(error as Error).stack}`);
            process.exit(1);
        }
    };

    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
}

/**
 * On the embedded default's empty database (a first `npm start`), a demo family to try the API with
 * at once. A configured database (DATABASE_URL: production) gets none: its demo super-admin and API
 * key would be live, and their secrets would stay in the service's log.
 */
async function seedDemoWhenEmpty(server: Server): Promise<void> {

    const services = server.app.services;
    if (await services.models.Family.count() > 0) {
        return;
    }

    if (!services.config.embeddedDatabase) {
        process.stdout.write('The database has no family yet: `family-records family create` makes one (`family-records demo` a demo family).\n');
        return;
    }

    const demo = await seedDemoFamily(server);
    process.stdout.write(['The database was empty: seeded a demo family.', ...demoInstructions(demo, server.info.uri), ''].join('\n') + '\n');
}

const listenProblems: Readonly<Record<string, string>> = {
    EADDRINUSE: 'the port is already in use (another service, or this one started twice)',
    EACCES: 'this user may not listen on that port (ports below 1024 need privileges)',
    EADDRNOTAVAIL: 'that address is not one of this machine\'s',
    ENOTFOUND: 'that host name does not resolve',
    EAI_AGAIN: 'that host name does not resolve (no answer from DNS)'
};

/** The server as configured, started; a listening failure says which setting to change. */
async function startedServer(config: Config): Promise<Server> {

    try {
        return await deployment({ start: true, config });
    }
    catch (error) {
        const { code, syscall, hostname } = error as NodeJS.ErrnoException & { hostname?: string };
        const problem = listenProblems[code ?? ''];
        // A name that does not resolve is HOST's only when it is HOST's name: DATABASE_URL's host fails alike, before listening.
        if (problem && (syscall !== 'getaddrinfo' || hostname === config.host)) {
            throw new CliError(`cannot listen on ${config.host}:${config.port}: ${problem}; set PORT (or HOST) to another`);
        }

        throw error;
    }
}

export const serveCommand = command({
    usage: 'serve',
    description: 'Starts the HTTP server (what npm start runs). On an empty database of the embedded default\n(DATABASE_URL unset) it first seeds a demo family and prints how to use it; a configured database\nis left empty (see demo). SIGINT/SIGTERM stop it gracefully.',
    options: {},
    async run() {

        turnOffAllocationSitePretenuring();
        const server = await startedServer(configFromEnvironment());
        stopOnSignals(server);
        try {
            await seedDemoWhenEmpty(server);
        }
        catch (error) {
            await server.stop();
            throw error;
        }

        process.stdout.write(`Family Records API listening on ${server.info.uri}\n`);
    }
});
