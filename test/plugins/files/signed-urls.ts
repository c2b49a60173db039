import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import { linkExpiry } from '../../../plugins/files/signed-urls';

export const lab = Lab.script();
const { describe, it } = lab;

describe('linkExpiry()', () => {

    it('keeps one expiry, so one link, for a third of the lifetime, which works for two thirds of it at least and never longer', () => {

        const lifetime = 900;
        const start = 1_800_000_000;                // a multiple of 300
        const expiries = new Set<number>();
        for (let now = start; now < start + 300; ++now) {
            const expiry = linkExpiry(now, lifetime);
            expect(expiry - now).to.be.within(600, 900);
            expiries.add(expiry);
        }

        expect([...expiries]).to.equal([start + 900]);
        expect(linkExpiry(start + 300, lifetime)).to.equal(start + 1200);
    });

    it('works for lifetimes too short to divide by three', () => {

        for (const lifetime of [1, 2, 3, 60]) {
            for (let now = 1_800_000_000; now < 1_800_000_000 + 70; ++now) {
                expect(linkExpiry(now, lifetime) - now, `lifetime ${lifetime}`).to.be.within(Math.ceil(lifetime * 2 / 3), lifetime);
            }
        }
    });
});
