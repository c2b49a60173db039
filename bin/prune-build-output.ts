/* `npm run build`, after `tsc -b`: removes what dist/ holds of source files since deleted (lib/build-output.ts). */
import Path from 'path';

import { removeStaleBuildOutputs } from '../lib/build-output';

const projectRoot = Path.resolve(__dirname, '../..');

for (const file of removeStaleBuildOutputs(projectRoot, Path.join(projectRoot, 'dist'))) {
    process.stdout.write(`removed ${Path.relative(projectRoot, file)}: its source is gone\n`);
}
