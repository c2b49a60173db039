import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';

import { recordId } from '../../../lib/ids';
import { resourceNames, resources } from '../../../models/resources';
import { recordIdSchema } from '../../../lib/field-schemas';

export const lab = Lab.script();
const { describe, it } = lab;

describe('recordIdSchema()', () => {

    it('accepts every id recordId() makes for the resource', () => {

        for (const name of resourceNames) {
            const schema = recordIdSchema(resources[name]);
            for (let made = 0; made < 200; ++made) {
                const id = recordId(resources[name].idPrefix);
                expect(schema.validate(id).error, id).to.not.exist();
            }
        }
    });

    it('refuses anything else: another resource\'s id, one character more or less, other characters', () => {

        const schema = recordIdSchema(resources.persons);
        const id = recordId(resources.persons.idPrefix);
        const body = id.slice(0, -1);
        for (const other of [recordId(resources.trees.idPrefix), body, `${id}A`, `${body}-`, `${body}\u0000`, `${body}é`, `${id}\n`, ` ${id}`, id.toUpperCase(), '']) {
            expect(schema.validate(other).error, JSON.stringify(other)).to.exist();
        }
    });
});
