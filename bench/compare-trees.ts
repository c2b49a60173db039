/*
 * Two builds of the service side by side, for telling whether a change made the request path
 * faster on a machine whose speed moves too much for two runs of gateway-noop to compare. Each
 * checkout's own deployment (built code, its own node_modules) runs in a process of its own with
 * gateway-noop's two routes, and one load generator measures both in turns of short slices, round
 * after round, so the machine's changing speed falls on both alike. A process can also run
 * slower than another of the same tree for its whole life, so this is done for `BENCH_PAIRS` pairs of fresh processes, every other pair loading
 * the second tree first. No target: it prints each pair's requests/s on the gateway's no-op route
 * and on the same route outside the gateway, the second tree's change, and the median change.
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
import { assertNoErrors, median, printEnvironment, printTable } from './lib/report';
import { benchSettings, measureTargets, positiveNumber, runScript, type BenchSettings, type Target } from './lib/run';

/** What the server process runs, in the other checkout's own built code; it ends when its stdin closes. */
const serverProgram = `
require('v8').setFlagsFromString('--no-allocation-site-pretenuring');      // as lib/garbage-collection.ts, for trees before it too
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

/** A value per target: a tree's requests/s in one pair of server processes, or the second tree's change over the first. */
interface TreeRates {
    gateway: number;
    ungated: number;
}

/** Fresh server processes of both trees, measured in turns; `afterFirst` loads the second tree's targets first. */
async function measurePair(before: string, after: string, afterFirst: boolean, settings: BenchSettings): Promise<[TreeRates, TreeRates]> {

    const servers = [await startTree(before), await startTree(after)];
    try {
        const targets = (server: TreeServer, name: string): Target[] => [
            { scenario: `${name}: gateway`, url: `${server.uri}/api/v1/bench-noop`, headers: { authorization: `Bearer ${server.key}` } },
            { scenario: `${name}: no gateway`, url: `${server.uri}/bench-noop` }
        ];
        const [beforeGateway, beforeUngated] = targets(servers[0], 'before');
        const [afterGateway, afterUngated] = targets(servers[1], 'after');
        const order = afterFirst ? [afterGateway, beforeGateway, afterUngated, beforeUngated] : [beforeGateway, afterGateway, beforeUngated, afterUngated];
        const measurements = await measureTargets(order, settings);
        assertNoErrors(measurements);

        const rate = (target: Target) => measurements[order.indexOf(target)].requestsPerSecond;
        return [{ gateway: rate(beforeGateway), ungated: rate(beforeUngated) }, { gateway: rate(afterGateway), ungated: rate(afterUngated) }];
    }
    finally {
        for (const server of servers) {
            server.child.stdin!.end();
        }
    }
}

const signedPercent = (change: number) => `${change >= 0 ? '+' : ''}${(100 * change).toFixed(1)}%`;

async function compareTrees(): Promise<void> {

    const [before, after = projectRoot] = process.argv.slice(2).map((tree) => Path.resolve(tree));
    if (!before) {
        throw new Error('usage: node dist/bench/compare-trees.js <checkout before> [<checkout after>]');
    }

    const settings = benchSettings();
    const pairs = Math.round(positiveNumber('BENCH_PAIRS', 3));
    printEnvironment(`compare-trees: ${before} (before) against ${after} (after), ${pairs} pairs of fresh server processes`, settings);
    const changes: TreeRates[] = [];
    const rows: string[][] = [];
    for (let pair = 0; pair < pairs; ++pair) {
        process.stderr.write(`pair ${pair + 1} of ${pairs}\n`);
        const [then, now] = await measurePair(before, after, pair % 2 === 1, settings);
        const change = { gateway: now.gateway / then.gateway - 1, ungated: now.ungated / then.ungated - 1 };
        changes.push(change);
        rows.push([String(pair + 1), then.gateway.toFixed(0), now.gateway.toFixed(0), signedPercent(change.gateway),
            then.ungated.toFixed(0), now.ungated.toFixed(0), signedPercent(change.ungated)]);
    }

    process.stdout.write('\n');
    printTable([
        ['pair', 'gateway before', 'after', 'change', 'no gateway before', 'after', 'change'],
        ...rows,
        ['median', '', '', signedPercent(median(changes.map((change) => change.gateway))), '', '', signedPercent(median(changes.map((change) => change.ungated)))]
    ]);
}

runScript(compareTrees);
