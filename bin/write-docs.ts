/* `npm run docs`: regenerates the documentation derived from declarations. */
import Fs from 'fs';
import Path from 'path';

import { projectRoot } from '../lib/config';
import { renderResourceReference } from '../lib/docs/resource-reference';

Fs.writeFileSync(Path.join(projectRoot, 'docs', 'resources.md'), renderResourceReference());
