import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import { latestPossibleDay, livingCutoff, presumedLiving } from '../../../lib/privacy/living-persons';

export const lab = Lab.script();
const { describe, it } = lab;

const policy = { maxAgeYears: 110, redactedName: 'Living' };

describe('latestPossibleDay() (living-persons.ts)', () => {

    it('reads a genealogy date as the last day it may mean', () => {

        const cases: [string, string][] = [
            ['1916', '1916-12-31'],
            ['1916-05', '1916-05-31'],
            ['1916-04', '1916-04-30'],
            ['1916-02', '1916-02-29'],          // a leap year
            ['1915-02', '1915-02-28'],
            ['1900-02', '1900-02-28'],          // a century, not a leap year
            ['2000-02', '2000-02-29'],          // a fourth century, a leap year
            ['1916-12', '1916-12-31'],
            ['1916-05-03', '1916-05-03'],
            ['0099', '0099-12-31'],
            ['0099-02', '0099-02-28']           // years below 100 are not read as 1900s
        ];
        for (const [date, latest] of cases) {
            expect(latestPossibleDay(date), date).to.equal(latest);
        }
    });
});

describe('livingCutoff() (living-persons.ts)', () => {

    it('is today in UTC less the policy\'s years, a 29 February with none then becoming the 28th', () => {

        const cases: [string, number, string][] = [
            ['2026-02-28T12:00:00Z', 110, '1916-02-28'],
            ['2026-03-01T00:00:00Z', 110, '1916-03-01'],
            ['2024-02-29T08:00:00Z', 110, '1914-02-28'],    // 1914 has no 29 February: the earlier day presumes more people living
            ['2024-02-29T08:00:00Z', 108, '1916-02-29'],
            ['2024-03-01T00:00:00Z', 110, '1914-03-01'],
            ['2026-12-31T23:59:59Z', 110, '1916-12-31'],
            ['2027-01-01T00:00:00Z', 110, '1917-01-01'],
            ['2026-07-15T23:30:00-02:00', 110, '1916-07-16'],   // already the 16th in UTC
            ['2026-07-15T10:00:00Z', 1, '2025-07-15'],
            ['2026-07-15T10:00:00Z', 150, '1876-07-15']
        ];
        for (const [now, years, cutoff] of cases) {
            expect(livingCutoff({ ...policy, maxAgeYears: years }, new Date(now)), `${now} less ${years} years`).to.equal(cutoff);
        }
    });

    it('is today\'s by default', () => {

        const today = new Date().toISOString().slice(0, 10);
        expect(livingCutoff(policy)).to.equal(`${Number(today.slice(0, 4)) - 110}${today.slice(4)}`.replace(/-02-29$/, '-02-28'));
    });
});

describe('presumedLiving() (living-persons.ts)', () => {

    const cutoff = '1916-02-28';
    const born = (birth_date: string | null, events: { type: string; date: string | null }[] = []) => presumedLiving({ birth_date, death_date: null }, events, cutoff);

    it('counts a birth at the edge of the threshold as living, and the day, month or year before it as not', () => {

        const cases: [string, boolean][] = [
            ['1916-02-28', true], ['1916-02-29', true], ['1916-02-27', false],
            ['1916-02', true], ['1916-01', false],
            ['1916', true], ['1915', false],
            ['1990-07-14', true]
        ];
        for (const [birth, living] of cases) {
            expect(born(birth), birth).to.equal(living);
        }
    });

    it('is not living with a death date or a death or burial event, whatever the birth', () => {

        expect(presumedLiving({ birth_date: '2000', death_date: '2001' }, [], cutoff)).to.be.false();
        expect(born('2000', [{ type: 'death', date: null }])).to.be.false();
        expect(born(null, [{ type: 'burial', date: '2020' }])).to.be.false();
        expect(born('2000', [{ type: 'baptism', date: '2000' }])).to.be.true();
    });

    it('with no birth date, goes by any dated event of theirs; with none, presumes living', () => {

        expect(born(null)).to.be.true();
        expect(born(null, [{ type: 'other', date: null }])).to.be.true();
        expect(born(null, [{ type: 'graduation', date: '2012-06' }, { type: 'baptism', date: '1916-01' }])).to.be.false();
        expect(born(null, [{ type: 'graduation', date: '1916' }, { type: 'baptism', date: '1916-02-27' }]), 'the earliest latest possible day counts, not the shortest text').to.be.false();
        expect(born(null, [{ type: 'baptism', date: '1916-02' }])).to.be.true();
    });

    it('goes by the birth date when there is one, however old their events', () => {

        expect(born('1988', [{ type: 'other', date: '1890' }])).to.be.true();
    });
});
