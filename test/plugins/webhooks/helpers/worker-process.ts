/*
 * A delivery worker in a process of its own, for the crash tests: the whole deployment
 * the environment describes (as `npm start` would run it), with the test transport.
 * Prints `ready` once its worker runs. Run only as a script: lab loads every file
 * under dist/test, and loading this one must do nothing.
 */
import { configFromEnvironment } from '../../../../lib/config';
import { deployment } from '../../../../lib/deployment';
import { consoleLog } from '../../../../lib/logger';
import { receiverHost } from './receiver';
import { scriptedResolver } from './setup';

async function runWorker(): Promise<void> {

    const server = await deployment({ config: configFromEnvironment(), log: consoleLog(true) });
    server.plugins.webhooks.useTestTransport({ ca: process.env.WEBHOOK_TEST_CA, resolve: scriptedResolver({ [receiverHost]: '127.0.0.1' }) });
    await server.start();
    process.stdout.write('ready\n');
}

if (require.main === module) {
    runWorker().catch((error: Error) => {

        process.stderr.write(`${error.stack}\n`);
        process.exit(1);
    });
}
