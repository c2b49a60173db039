/*
 * Two builds of the service side by side, for telling whether a change made the request path
 * faster on a machine whose speed moves too much for two runs of gateway-noop to compare. Each
 * checkout's own deployment (built code, its own node_modules) runs in a process of its own with
 * gateway-noop's two routes, and one load generator measures both in turns of short slices, round
 * after round, so the machine's changing speed falls on both alike. No target: it prints each
 * tree's requests/s on the gateway's no-op route and on the same route outside the gateway, and
 * the second tree's change.
 *
 *   node dist/bench/compare-trees.js <checkout before> [<checkout after>, this one by default]
 *
 * Both checkouts must be built (`npm run build`) and have their dependencies installed. A checkout
 * older than this script works too: the server process only uses what gateway-noop always has.
 */
import { spawn, type ChildProcess } from 'child_process';
import Path from 'path';
import { createInterface } from 'readline';

import { projectRoot } from '../lib/config';
import { assertNoErrors, printEnvironment, printTable } from './lib/report';
import { benchSettings, measureTargets, runScript, type Measurement, type Target } from './lib/run';

/** What the server process runs, in the other checkout's own built code; it ends when its stdin closes. */
const serverProgram = `
const root = process.env.COMPARED_TREE;
const { benchDeployment, noopBody } = require(root + '/dist/bench/lib/servers');
const { familyWithKey } = require(root + '/dist/test/helpers/server');
(async () => {
    const server = await benchDeployment({ extraRoutes: [
        { method: 'GET', path: '/bench-noop', handler: () => noopBody },
        { method: 'GET', path: '/api/v1/bench-noop', options: { auth: 'family-api', plugins: { gateway: { resource: 'persons', operation: 'read' } } }, handler: () => noopBody }
    ] });
    const { key } = await familyWithKey(server);
    process.stdout.write(JSON.stringify({ uri: server.info.uri, key }) + '\\n');
    process.stdin.on('end', () => server.stop().then(() => process.exit(0)));
    process.stdin.resume();
})().catch((error) => { process.stderr.write(error.stack + '\\n'); process.exit(1); });
`;

interface TreeServer {
    tree: string;
    child: ChildProcess;
    uri: string;
    key: string;
}

async function startTree(tree: string): Promise<TreeServer> {

    const child = spawn(process.execPath, ['-e', serverProgram], { cwd: tree, env: { ...process.env, COMPARED_TREE: tree }, stdio: ['pipe', 'pipe', 'inherit'] });
    const [line] = await Promise.race([
        createInterface({ input: child.stdout! })[Symbol.asyncIterator]().next().then((next) => [next.value as string | undefined]),
        new Promise<never>((_resolve, reject) => child.once('exit', (code) => reject(new Error(`the server of ${tree} ended (exit code ${code}) before it listened`))))
    ]);
    const { uri, key } = JSON.parse(line ?? '{}') as { uri: string; key: string };
    return { tree, child, uri, key };
}

async function compareTrees(): Promise<void> {

    const [before, after = projectRoot] = process.argv.slice(2).map((tree) => Path.resolve(tree));
    if (!before) {
        throw new Error('usage: node dist/bench/compare-trees.js <checkout before> [<checkout after>]');
    }

    const settings = benchSettings();
    printEnvironment(`compare-trees: ${before} (before) against ${after} (after)`, settings);
    const servers = [await startTree(before), await startTree(after)];
    try {
        const [first, second] = servers;
        const gateway = (server: TreeServer, name: string): Target => ({ scenario: `${name}: gateway`, url: `${server.uri}/api/v1/bench-noop`, headers: { authorization: `Bearer ${server.key}` } });
        const ungated = (server: TreeServer, name: string): Target => ({ scenario: `${name}: no gateway`, url: `${server.uri}/bench-noop` });
        const measurements = await measureTargets([gateway(first, 'before'), gateway(second, 'after'), ungated(first, 'before'), ungated(second, 'after')], settings);
        assertNoErrors(measurements);

        const [gatewayBefore, gatewayAfter, ungatedBefore, ungatedAfter] = measurements;
        const change = (now: Measurement, then: Measurement) => `${now.requestsPerSecond >= then.requestsPerSecond ? '+' : ''}${(100 * (now.requestsPerSecond / then.requestsPerSecond - 1)).toFixed(1)}%`;
        const rows: [Measurement, Measurement?][] = [[gatewayBefore], [gatewayAfter, gatewayBefore], [ungatedBefore], [ungatedAfter, ungatedBefore]];
        process.stdout.write('\n');
        printTable([
            ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'after vs before'],
            ...rows.map(([measured, then]) => [measured.scenario, measured.requestsPerSecond.toFixed(0), String(measured.p50Ms), String(measured.p99Ms), then ? change(measured, then) : ''])
        ]);
    }
    finally {
        for (const server of servers) {
            server.child.stdin!.end();
        }
    }
}

runScript(compareTrees);
