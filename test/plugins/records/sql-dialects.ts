import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';

import { sqlDialects } from '../../../plugins/records/sql-dialects';

export const lab = Lab.script();
const { describe, it } = lab;

describe('sqlDialects', () => {

    describe('isoTimestamp()', () => {

        it('rearranges SQLite\'s stored UTC text, and reads any other shape as a date', () => {

            const { isoTimestamp } = sqlDialects.sqlite;
            expect(isoTimestamp('2026-11-21 09:05:07.123 +00:00')).to.equal('2026-11-21T09:05:07.123Z');
            expect(isoTimestamp('2026-11-21 09:05:07.123 +02:00')).to.equal('2026-11-21T07:05:07.123Z');
            expect(isoTimestamp('2026-11-21 09:05:07 +00:00')).to.equal('2026-11-21T09:05:07.000Z');
        });

        it('pads or cuts the fraction of PostgreSQL\'s UTC text to milliseconds, and reads any other zone as a date', () => {

            const { isoTimestamp } = sqlDialects.postgres;
            expect(isoTimestamp('2026-11-21 09:05:07.123+00')).to.equal('2026-11-21T09:05:07.123Z');
            expect(isoTimestamp('2026-11-21 09:05:07.12+00')).to.equal('2026-11-21T09:05:07.120Z');
            expect(isoTimestamp('2026-11-21 09:05:07+00')).to.equal('2026-11-21T09:05:07.000Z');
            // Cut, not rounded: what a JavaScript Date made from the same value keeps.
            expect(isoTimestamp('2026-11-21 09:05:07.123999+00')).to.equal(new Date('2026-11-21T09:05:07.123999Z').toISOString());
            expect(isoTimestamp('2026-11-21 09:05:07.5+01')).to.equal('2026-11-21T08:05:07.500Z');
            expect(isoTimestamp('2026-11-21 09:05:07.5-03:30')).to.equal('2026-11-21T12:35:07.500Z');
            // Date would read `0099-…+01` as 1999: the offset is written out as ISO 8601 has it first.
            expect(isoTimestamp('0099-11-21 09:05:07.5+01')).to.equal('0099-11-21T08:05:07.500Z');
        });
    });

    describe('timestampValue()', () => {

        it('gives a SQLite cursor the stored shape, which compares as text', () => {

            expect(sqlDialects.sqlite.timestampValue('2026-11-21T09:05:07.123Z')).to.equal('2026-11-21 09:05:07.123 +00:00');
            expect(sqlDialects.postgres.timestampValue('2026-11-21T09:05:07.123Z')).to.equal('2026-11-21T09:05:07.123Z');
        });
    });

    describe('containsText()', () => {

        it('looks for the bound text exactly, with no wildcards: the search text and the words are folded beforehand', () => {

            expect(sqlDialects.sqlite.containsText('"search_text"', '$2')).to.equal('instr("search_text", $2) > 0');
            expect(sqlDialects.postgres.containsText('"search_text"', '$2')).to.equal('strpos("search_text", $2) > 0');
        });
    });
});
