import ChildProcess from 'child_process';
import Fs from 'fs';
import Https from 'https';
import Path from 'path';

import { projectRoot } from '../../lib/config';
import { until } from '../plugins/stream/client';
import { accepts, freePort } from './ports';
import { scratchDirectory } from './server';
import { siteHost, testPki } from './test-pki';

/** nginx (Debian's nginx-light, which .ci/run installs), or undefined on a machine without it. */
export const nginxBinary = ['/usr/sbin/nginx', ...(process.env.PATH ?? '').split(':').map((directory) => Path.join(directory, 'nginx'))]
    .find((path) => Fs.existsSync(path));

/** Replaces what `pattern` matches in `text`, which it must match exactly `times` times: deploy/nginx.conf changed shape otherwise. */
function replaceExactly(text: string, pattern: RegExp, replacement: string, times = 1): string {

    const everywhere = new RegExp(pattern.source, `${pattern.flags.replace('g', '')}g`);
    const found = text.match(everywhere)?.length ?? 0;
    if (found !== times) {
        throw new Error(`deploy/nginx.conf: expected ${pattern} ${times} time(s), found it ${found} time(s)`);
    }

    return text.replace(everywhere, replacement);
}

export interface SiteSettings {
    /** Where nginx listens (127.0.0.1), for the shipped `listen 443 ssl http2`. */
    port: number;
    /** The instances' ports, for the shipped upstream's `server 127.0.0.1:3001` and `:3002`. */
    upstreamPorts: [number, number];
    certificate: string;
    certificateKey: string;
    accessLog: string;
}

/**
 * deploy/nginx.conf as shipped, with only what a machine decides replaced: the address it listens on, the
 * instances' ports, the certificate's files and the access log's. Everything else is what operators run.
 */
export function testSiteConfig(settings: SiteSettings): string {

    let conf = Fs.readFileSync(Path.join(projectRoot, 'deploy', 'nginx.conf'), 'utf8');
    const [first, second] = settings.upstreamPorts;
    conf = replaceExactly(conf, /server 127\.0\.0\.1:3001 /, `server 127.0.0.1:${first} `);
    conf = replaceExactly(conf, /server 127\.0\.0\.1:3002 /, `server 127.0.0.1:${second} `);
    conf = replaceExactly(conf, /listen 443 ssl http2;/, `listen 127.0.0.1:${settings.port} ssl http2;`);
    conf = replaceExactly(conf, /ssl_certificate +\S+;/, `ssl_certificate ${settings.certificate};`);
    conf = replaceExactly(conf, /ssl_certificate_key +\S+;/, `ssl_certificate_key ${settings.certificateKey};`);
    return replaceExactly(conf, /access_log \S+ family_records;/, `access_log ${settings.accessLog} family_records;`);
}

/** An answer through nginx: status, headers (names in lower case) and body. */
export interface ProxiedAnswer {
    statusCode: number;
    headers: Record<string, string | string[] | undefined>;
    body: string;
}

/** A real nginx in the foreground with deploy/nginx.conf, over TLS with a certificate of the test CA, in a scratch directory. */
export class TestNginx {

    private constructor(
        private readonly process: ChildProcess.ChildProcess,
        readonly port: number,
        readonly ca: string,
        private readonly directory: string
    ) {}

    /** Writes the configuration into a scratch directory and checks it with `nginx -t`; returns the main file's path. */
    static async configure(upstreamPorts: [number, number]): Promise<{ directory: string; mainConf: string; port: number; ca: string }> {

        const directory = scratchDirectory();
        // Read by nginx's workers, which run as nobody when the tests run as root (CI).
        Fs.chmodSync(directory, 0o755);
        Fs.mkdirSync(Path.join(directory, 'temp'));
        const { ca, key, cert } = await testPki();
        Fs.writeFileSync(Path.join(directory, 'cert.pem'), cert);
        Fs.writeFileSync(Path.join(directory, 'key.pem'), key);
        const port = await freePort();
        const site = testSiteConfig({
            port, upstreamPorts,
            certificate: Path.join(directory, 'cert.pem'),
            certificateKey: Path.join(directory, 'key.pem'),
            accessLog: Path.join(directory, 'access.log')
        });
        Fs.writeFileSync(Path.join(directory, 'site.conf'), site);
        const temp = (name: string) => `${name}_temp_path ${Path.join(directory, 'temp', name)};`;
        const mainConf = Path.join(directory, 'nginx.conf');
        Fs.writeFileSync(mainConf, [
            'daemon off;',
            'worker_processes 1;',
            `pid ${Path.join(directory, 'nginx.pid')};`,
            `error_log ${Path.join(directory, 'error.log')} warn;`,
            'events { worker_connections 256; }',
            'http {',
            ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(temp),
            `    include ${Path.join(directory, 'site.conf')};`,
            '}',
            ''
        ].join('\n'));
        return { directory, mainConf, port, ca };
    }

    /** Runs `nginx -t` on a configuration: its output, or an error holding it when nginx refuses it. */
    static check(mainConf: string, directory: string): string {

        const result = ChildProcess.spawnSync(nginxBinary!, ['-t', '-p', directory, '-e', Path.join(directory, 'error.log'), '-c', mainConf], { encoding: 'utf8' });
        if (result.status !== 0) {
            throw new Error(`nginx -t refused the configuration:\n${result.stderr}`);
        }

        return result.stderr;
    }

    static async start(upstreamPorts: [number, number]): Promise<TestNginx> {

        const { directory, mainConf, port, ca } = await TestNginx.configure(upstreamPorts);
        TestNginx.check(mainConf, directory);
        const child = ChildProcess.spawn(nginxBinary!, ['-p', directory, '-e', Path.join(directory, 'error.log'), '-c', mainConf], { stdio: 'ignore' });
        const nginx = new TestNginx(child, port, ca, directory);
        await nginx.listening();
        return nginx;
    }

    /** Resolves once nginx accepts connections; fails with its error log when it ends or does not in 5 s. */
    private async listening(): Promise<void> {

        const deadline = Date.now() + 5000;
        for (;;) {
            if (await accepts(this.port)) {
                return;
            }

            if (this.process.exitCode !== null || Date.now() > deadline) {
                throw new Error(`nginx did not start:\n${this.errorLog()}`);
            }

            await new Promise((resolve) => setTimeout(resolve, 20));
        }
    }

    errorLog(): string {

        const file = Path.join(this.directory, 'error.log');
        return Fs.existsSync(file) ? Fs.readFileSync(file, 'utf8') : '';
    }

    /** The access log's lines so far (nginx writes each as its request ends). */
    private accessLog(): string[] {

        const file = Path.join(this.directory, 'access.log');
        return Fs.existsSync(file) ? Fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
    }

    /**
     * The access log's line of the request nginx gave the id `requestId`. nginx writes it as the request
     * ends, which may come just after the client has read the answer: this waits for it.
     */
    async accessLogLine(requestId: string): Promise<string> {

        let line: string | undefined;
        await until(() => (line = this.accessLog().find((entry) => entry.endsWith(`request_id=${requestId}`))) !== undefined, `the access log's line of ${requestId}`);
        return line!;
    }

    /** The options of a request to nginx as a client on the internet makes it: TLS for family.example.com, trusting the test CA. */
    requestOptions(method: string, path: string, headers: Record<string, string | number> = {}): Https.RequestOptions {

        return { host: '127.0.0.1', port: this.port, servername: siteHost, ca: this.ca, method, path, headers: { host: siteHost, ...headers }, agent: false };
    }

    /** One request through nginx, the whole answer read. */
    request(method: string, path: string, options: { headers?: Record<string, string | number>; body?: string | Buffer } = {}): Promise<ProxiedAnswer> {

        return new Promise((resolve, reject) => {

            const request = Https.request(this.requestOptions(method, path, options.headers), (response) => {

                const chunks: Buffer[] = [];
                response.on('data', (chunk: Buffer) => chunks.push(chunk));
                response.on('end', () => resolve({ statusCode: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }));
                response.on('error', reject);
            });
            request.on('error', reject);
            request.end(options.body);
        });
    }

    /** Stops nginx at once (SIGTERM) and waits for it to end. */
    async stop(): Promise<void> {

        if (this.process.exitCode !== null || this.process.signalCode !== null) {
            return;
        }

        const ended = new Promise((resolve) => this.process.once('exit', resolve));
        this.process.kill('SIGTERM');
        await ended;
    }
}
