import EnvPaths from 'env-paths';

import { ensurePrivateDirSync } from './private-files';

/** Where the desktop client keeps its profiles: $FAMILY_RECORDS_DESKTOP_HOME, else the platform's data directory. Created 0700. */
export function desktopHome(): string {

    const home = process.env.FAMILY_RECORDS_DESKTOP_HOME || EnvPaths('family-records-desktop', { suffix: '' }).data;
    ensurePrivateDirSync(home);
    return home;
}
