import Fs from 'fs';
import Path from 'path';

import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';

import { projectRoot } from '../../../lib/config';
import { renderResourceReference } from '../../../lib/docs/resource-reference';

export const lab = Lab.script();
const { describe, it } = lab;

describe('renderResourceReference()', () => {

    it('matches docs/resources.md (run `npm run docs` after changing a declaration)', () => {

        expect(Fs.readFileSync(Path.join(projectRoot, 'docs', 'resources.md'), 'utf8')).to.equal(renderResourceReference());
    });

    it('documents the person fields, the required ones and the gender values', () => {

        const text = renderResourceReference();
        expect(text).to.contain('| `first_name` | string (≤ 100 characters) | ✓ |');
        expect(text).to.contain('one of `female`, `male`, `other`, `unknown`');
    });
});
