import { apiError } from '../../lib/errors';

export interface LifeDates {
    birth_date?: string | null;
    death_date?: string | null;
}

/**
 * Whether `death` certainly comes before `birth`. Partial dates are compared as far as both are known:
 * `1950` is neither before nor after `1950-03`, so a death in the year of a birth known to the month
 * stands. ISO 8601 dates of four-digit years order as text.
 */
function diesBeforeBirth(birth: string, death: string): boolean {

    const known = Math.min(birth.length, death.length);
    return death.slice(0, known) < birth.slice(0, known);
}

/**
 * A person does not die before they are born. `dates` are the person's after the write, `changed`
 * what the write sets; only a write that sets either date is checked, so that dates stored before
 * this rule do not block other changes (as with the person's links, person-links.ts).
 */
export function assertLifeDates(dates: LifeDates, changed: LifeDates): void {

    const { birth_date: birth, death_date: death } = dates;
    if (!birth || !death || !diesBeforeBirth(birth, death)) {
        return;
    }

    if (changed.death_date !== undefined) {
        throw apiError(400, 'invalid_request', `death_date: ${death} is before the birth date ${birth}.`);
    }

    if (changed.birth_date !== undefined) {
        throw apiError(400, 'invalid_request', `birth_date: ${birth} is after the death date ${death}.`);
    }
}
