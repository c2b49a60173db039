import Fs from 'fs';

import { ConfigError } from './config';

/**
 * FILES_DIR, created when missing: a path that cannot be a directory this process writes to stops what needs it
 * (start-up, the demo command), naming it, rather than failing the first file stored. (A command that writes no
 * files, perhaps run as another user, does not check it.)
 */
export function checkFilesDirectory(dir: string): void {

    try {
        Fs.mkdirSync(dir, { recursive: true });
        Fs.accessSync(dir, Fs.constants.W_OK);
    }
    catch (error) {
        throw new ConfigError(`Invalid configuration: FILES_DIR ${dir} cannot hold the uploaded files: ${(error as Error).message}`);
    }
}
