import { command } from './command';
import { jsonOption, printResult } from './output';
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
    usage: 'migrate [--json]',
    description: 'Brings the database schema up to date (every start does this too).',
    options: jsonOption,
    async run({ values }) {

        // Opening a deployment migrates; nothing more to do.
        const database = describeDatabase(await withServices(async ({ config }) => config.databaseUrl));
        printResult(values.json, { database, up_to_date: true }, () => [`Database is up to date: ${database}`]);
    }
});
