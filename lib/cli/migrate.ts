import { command } from './command';
import { withServices } from './services';

/** The database named by a URL, without its password. */
function describeDatabase(databaseUrl: string): string {

    if (databaseUrl.startsWith('sqlite:')) {
        return databaseUrl;
    }

    const url = new URL(databaseUrl);
    url.password = url.password ? '***' : '';
    return url.toString();
}

export const migrateCommand = command({
    usage: 'migrate',
    description: 'Brings the database schema up to date (every start does this too).',
    options: {},
    async run() {

        // Opening a deployment migrates; nothing more to do.
        const databaseUrl = await withServices(async ({ config }) => config.databaseUrl);
        process.stdout.write(`Database is up to date: ${describeDatabase(databaseUrl)}\n`);
    }
});
