/*
 * Who is presumed living, from policies/privacy.yaml: the rule once in JavaScript (for one record
 * and for tests) and once as SQL (for every reader of a list), on SQLite and PostgreSQL alike.
 */
import Joi from 'joi';

import { policyFile, type Policies } from '../../gateway/policies/policy-file';

/** policies/privacy.yaml as written. */
export interface PrivacyPolicyDocument {
    living_persons: {
        /** A person born (latest possible day) more than this many years ago is presumed dead. */
        max_age_years: number;
        /** What a redacted living person's first_name reads. */
        redacted_name: string;
    };
}

/** policies/privacy.yaml as the service uses it. */
export interface LivingPersonsPolicy {
    maxAgeYears: number;
    redactedName: string;
}

export interface PrivacyPolicy {
    livingPersons: LivingPersonsPolicy;
}

declare module '../../gateway/policies/policy-file' {
    interface Policies {
        privacy: PrivacyPolicy;
    }
}

export const privacyPolicyFile = policyFile({
    fileName: 'privacy.yaml',
    key: 'privacy',
    schema: Joi.object<PrivacyPolicyDocument, true>({
        living_persons: Joi.object<PrivacyPolicyDocument['living_persons'], true>({
            // Above 150 nobody alive is left out; below 1 everyone with a birth date would be.
            max_age_years: Joi.number().integer().min(1).max(150).required(),
            redacted_name: Joi.string().trim().min(1).max(100).required()
        }).required()
    }),
    toPolicy: (document: PrivacyPolicyDocument): PrivacyPolicy => ({
        livingPersons: { maxAgeYears: document.living_persons.max_age_years, redactedName: document.living_persons.redacted_name }
    })
});

/** The living-persons part of the policies in force. */
export const livingPersonsPolicyOf = (policies: Policies): LivingPersonsPolicy => policies.privacy.livingPersons;

const pad = (value: number, length: number) => String(value).padStart(length, '0');

const daysInMonth = (year: number, month: number) => {

    const date = new Date(0);
    date.setUTCFullYear(year, month, 0);        // day 0 of the next month: the last of this one
    return date.getUTCDate();
};

/**
 * `now` (UTC) minus the policy's years, as `YYYY-MM-DD`. A 29 February whose year, so many years
 * back, has none becomes the 28th: the earlier cutoff presumes more people living.
 */
export function livingCutoff(policy: LivingPersonsPolicy, now: Date = new Date()): string {

    const year = now.getUTCFullYear() - policy.maxAgeYears;
    const month = now.getUTCMonth() + 1;
    const day = Math.min(now.getUTCDate(), daysInMonth(year, month));
    return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`;
}

/** The last day a genealogy date may mean: `1916` → `1916-12-31`, `1916-02` → `1916-02-29`. */
export function latestPossibleDay(partialDate: string): string {

    const [year, month] = partialDate.split('-').map(Number);
    if (partialDate.length === 4) {
        return `${partialDate}-12-31`;
    }

    if (partialDate.length === 7) {
        return `${partialDate}-${pad(daysInMonth(year, month), 2)}`;
    }

    return partialDate;
}

const beforeCutoff = (partialDate: string, cutoff: string) => latestPossibleDay(partialDate) < cutoff;

/** Events whose type says the person has died. */
export const deathEventTypes: readonly string[] = ['death', 'burial'];

/**
 * The rule: living unless a death date, a death or burial event, or a birth date (lacking one, any
 * dated event of theirs) whose latest possible day is before `cutoff`. Unknown birth and no dated
 * event: living.
 */
export function presumedLiving(person: { birth_date: string | null; death_date: string | null },
    events: Array<{ type: string; date: string | null }>, cutoff: string): boolean {

    if (person.death_date !== null || events.some((event) => deathEventTypes.includes(event.type))) {
        return false;
    }

    if (person.birth_date !== null) {
        return !beforeCutoff(person.birth_date, cutoff);
    }

    return !events.some((event) => event.date !== null && beforeCutoff(event.date, cutoff));
}

/*
 * A partial date's latest possible day is before the cutoff exactly when the date is before the
 * cutoff cut to the date's own length: `1916-05` < `1916-06` (the cutoff's month), `1916` < `1917`.
 * No calendar arithmetic, so the same text on both databases. Compared byte by byte ("C"), as
 * JavaScript compares, whatever the PostgreSQL database's collation.
 */
const sqlDateBefore = (dialectName: 'sqlite' | 'postgres', column: string, cutoff: string) => {

    const collate = dialectName === 'postgres' ? ' COLLATE "C"' : '';
    return `${column}${collate} < substr(CAST(${cutoff} AS TEXT), 1, length(${column}))${collate}`;
};

/**
 * Keeps PostgreSQL's planner from answering the subquery once for the whole family, hashed, instead
 * of for each row read: it weighs every row the outer scan could read, not the page a LIMIT keeps,
 * so a page of 51 persons would read every person and event of the family. `OFFSET 0` stops it
 * turning the subquery into a join or a hashed set. SQLite runs it for each row anyway.
 */
const perRow = (dialectName: 'sqlite' | 'postgres') => (dialectName === 'postgres' ? ' OFFSET 0' : '');

/**
 * An SQL condition: the person whose id is the SQL expression `personId`, in the family whose
 * long id is the SQL expression `familyLongId`, is presumed living (presumedLiving()). FALSE when
 * `personId` is NULL or names no person of that family. `cutoff` is the SQL of a bound parameter
 * holding livingCutoff().
 */
export function livingPersonSql(dialectName: 'sqlite' | 'postgres', personId: string, familyLongId: string, cutoff: string): string {

    const person = '"living_person"';
    return `EXISTS (SELECT 1 FROM "persons" AS ${person} WHERE ${person}."id" = ${personId} AND ${person}."family_long_id" = ${familyLongId} AND ${livingPersonRowSql(dialectName, person, cutoff)}${perRow(dialectName)})`;
}

/**
 * livingPersonSql() for a query whose row is the person: `person` is the persons table's name or
 * alias in it (`"persons"`). Saves looking the person up again, once a row of a persons list.
 * The one subquery reads only an index of events on (family_long_id, person_id, type, date).
 */
export function livingPersonRowSql(dialectName: 'sqlite' | 'postgres', person: string, cutoff: string): string {

    const event = '"living_person_event"';
    const birth = `${person}."birth_date"`;
    const deathTypes = deathEventTypes.map((type) => `'${type}'`).join(', ');

    return `${person}."death_date" IS NULL` +
        ` AND (${birth} IS NULL OR NOT (${sqlDateBefore(dialectName, birth, cutoff)}))` +
        ` AND NOT EXISTS (SELECT 1 FROM "events" AS ${event} WHERE ${event}."family_long_id" = ${person}."family_long_id" AND ${event}."person_id" = ${person}."id"` +
        ` AND (${event}."type" IN (${deathTypes}) OR (${birth} IS NULL AND ${sqlDateBefore(dialectName, `${event}."date"`, cutoff)}))${perRow(dialectName)})`;
}
