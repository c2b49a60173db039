/* `npm run build`, after `tsc -b`: removes what dist/ and desktop/dist/ hold of source files since deleted (lib/build-output.ts). */
import Path from 'path';

import { removeStaleBuildOutputs } from '../lib/build-output';

const projectRoot = Path.resolve(__dirname, '../..');

for (const packageRoot of [projectRoot, Path.join(projectRoot, 'desktop')]) {
    for (const file of removeStaleBuildOutputs(packageRoot, Path.join(packageRoot, 'dist'))) {
        process.stdout.write(`removed ${Path.relative(projectRoot, file)}: its source is gone\n`);
    }
}
