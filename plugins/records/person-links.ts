import type { Transaction } from 'sequelize';

import { apiError } from '../../lib/errors';
import type { Models } from '../../models';

export interface PersonLinks {
    parent_1_id?: string | null;
    parent_2_id?: string | null;
    spouse_id?: string | null;
}

const parentFields = ['parent_1_id', 'parent_2_id'] as const;
type ParentField = typeof parentFields[number];

const invalidLink = (field: string, message: string) => apiError(400, 'invalid_request', `${field}: ${message}`);

/** The parents of the persons `ids`, read in one query. */
async function parentsOf(models: Models, familyLongId: string, ids: string[], transaction: Transaction): Promise<string[]> {

    const rows = await models.records.persons.findAll({ where: { family_long_id: familyLongId, id: ids }, attributes: [...parentFields], transaction });
    return rows.flatMap((row) => parentFields.map((field) => row.get(field) as string | null)).filter((id): id is string => id !== null);
}

/** Whether `ancestor` is `person` or one of their ancestors, a generation a query; links that already loop end the walk. */
async function descendsFrom(models: Models, familyLongId: string, person: string, ancestor: string, transaction: Transaction): Promise<boolean> {

    const seen = new Set<string>();
    let generation = [person];
    while (generation.length > 0) {
        if (generation.includes(ancestor)) {
            return true;
        }

        generation.forEach((id) => seen.add(id));
        generation = [...new Set(await parentsOf(models, familyLongId, generation, transaction))].filter((id) => !seen.has(id));
    }

    return false;
}

/** The person's own links: two different parents, and a spouse who is not also a parent. */
function assertOwnLinks(links: PersonLinks, changedParents: ParentField[], spouseChanged: boolean): void {

    const { parent_1_id: parent1, parent_2_id: parent2, spouse_id: spouse } = links;
    if (changedParents.length > 0 && parent1 && parent1 === parent2) {
        throw invalidLink(changedParents[changedParents.length - 1], `the two parents must be different persons (both would be person ${parent1}).`);
    }

    if ((changedParents.length > 0 || spouseChanged) && spouse && (parent1 === spouse || parent2 === spouse)) {
        throw invalidLink(spouseChanged ? 'spouse_id' : changedParents[0], `person ${spouse} would be both a parent and the spouse of this person.`);
    }
}

/** The links' other ends: nobody is their own ancestor, and a parent and their child are never spouses. */
async function assertRelativesAllow(models: Models, familyLongId: string, id: string, changed: PersonLinks,
    changedParents: ParentField[], transaction: Transaction): Promise<void> {

    for (const field of changedParents) {
        const parent = changed[field]!;
        if (await descendsFrom(models, familyLongId, parent, id, transaction)) {
            throw invalidLink(field, `person ${parent} descends from this person, so cannot be their parent.`);
        }

        if (await models.records.persons.count({ where: { family_long_id: familyLongId, id: parent, spouse_id: id }, transaction }) > 0) {
            throw invalidLink(field, `person ${parent} has this person as their spouse, so cannot be their parent.`);
        }
    }

    const spouse = changed.spouse_id;
    if (typeof spouse === 'string' && (await parentsOf(models, familyLongId, [spouse], transaction)).includes(id)) {
        throw invalidLink('spouse_id', `person ${spouse} is a child of this person, so cannot be their spouse.`);
    }
}

/**
 * The rules of a person's family links besides "a person of this family, not themself" (writes.ts).
 * `links` are the person's links after the write, `changed` what the write sets, `id` the
 * person's own id (none on create: nobody refers to them yet). Only the links a write sets
 * are checked, so links stored before these rules do not block other changes.
 */
export async function assertPersonLinks(models: Models, familyLongId: string, links: PersonLinks, changed: PersonLinks, transaction: Transaction, id?: string): Promise<void> {

    const changedParents = parentFields.filter((field) => typeof changed[field] === 'string');
    assertOwnLinks(links, changedParents, typeof changed.spouse_id === 'string');
    if (id !== undefined) {
        await assertRelativesAllow(models, familyLongId, id, changed, changedParents, transaction);
    }
}
