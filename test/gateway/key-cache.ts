import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';

import { KeyCache } from '../../gateway/key-cache';
import type { Principal } from '../../gateway/principal';

export const lab = Lab.script();
const { describe, it } = lab;

function credentials(id: string): Principal {

    return {
        who: { kind: 'key', id },
        credentialName: 'API key',
        family: { familyLongId: 'fam_1', name: 'F', plan: 'family', apiEnabled: true, apiResources: ['persons'], suspended: false, messagingSuspended: false },
        scopes: { resources: ['persons'], operations: ['read'], legacyOperationsOnly: false, livingPersons: 'full' },
        rateLimitSubjects: { own: { policy: 'key', subject: id }, family: { policy: 'family', subject: 'fam_1' } }
    };
}

/** A cache of at most `size` keys whose clock the test moves. */
function cacheWithClock(size = 10, maxAgeMs = 60_000) {

    const clock = { now: 1_000_000 };
    return { cache: new KeyCache(size, maxAgeMs, () => clock.now), clock };
}

describe('KeyCache', () => {

    it('answers a key only under the epoch it was loaded in', () => {

        const { cache } = cacheWithClock();
        cache.set('frk_a', '1', credentials('a'));
        expect(cache.get('frk_a', '1')!.who.id).to.equal('a');
        expect(cache.get('frk_a', '2')).to.be.undefined();
        expect(cache.get('frk_a', '1')).to.be.undefined();          // dropped once seen under a newer epoch
        expect(cache.get('frk_b', '1')).to.be.undefined();
    });

    it('forgets an entry past its age limit', () => {

        const { cache, clock } = cacheWithClock(10, 5_000);
        cache.set('frk_a', '1', credentials('a'));
        clock.now += 5_000;
        expect(cache.get('frk_a', '1')).to.not.be.undefined();
        clock.now += 1;
        expect(cache.get('frk_a', '1')).to.be.undefined();
    });

    it('evicts the least recently used key when full, with use counted to the second', () => {

        const { cache, clock } = cacheWithClock(2);
        cache.set('frk_a', '1', credentials('a'));
        cache.set('frk_b', '1', credentials('b'));
        clock.now += 1_000;
        expect(cache.get('frk_a', '1')).to.not.be.undefined();       // a is now more recent than b
        cache.set('frk_c', '1', credentials('c'));
        expect(cache.get('frk_b', '1')).to.be.undefined();
        expect(cache.get('frk_a', '1')).to.not.be.undefined();
        expect(cache.get('frk_c', '1')).to.not.be.undefined();
    });

    it('keeps a key used within the same second where it was', () => {

        const { cache } = cacheWithClock(2);
        cache.set('frk_a', '1', credentials('a'));
        cache.set('frk_b', '1', credentials('b'));
        expect(cache.get('frk_a', '1')).to.not.be.undefined();       // too soon to move: a stays the oldest
        cache.set('frk_c', '1', credentials('c'));
        expect(cache.get('frk_a', '1')).to.be.undefined();
        expect(cache.get('frk_b', '1')).to.not.be.undefined();
    });
});
