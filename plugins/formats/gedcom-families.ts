/** What a person's record says about their family: the links and what orders children. */
export interface PersonLinks {
    parents: string[];
    spouse?: string;
    gender?: string;
    birthDate?: string;
}

/** A GEDCOM family: up to two partners and their children, by person id. */
export interface Family {
    xref: string;
    partners: string[];
    children: string[];
}

export interface FamilyIndex {
    families: Family[];
    /** The family a person is a child of. */
    asChild: Map<string, Family>;
    /** The families a person is a partner (parent or spouse) in. */
    asPartner: Map<string, Family[]>;
}

const byBirth = (links: Map<string, PersonLinks>) => {

    return (a: string, b: string) => {

        const first = links.get(a)?.birthDate ?? '\uffff';
        const second = links.get(b)?.birthDate ?? '\uffff';
        return first < second ? -1 : first > second ? 1 : 0;
    };
};

/**
 * The families the persons' links imply: one per couple of spouses and one per set of parents,
 * each once however many members name it. A link to a person outside `links` (not in the
 * export) is left out, so every family member is a person of the file.
 */
export function familiesOf(links: Map<string, PersonLinks>, nextXref: () => string): FamilyIndex {

    const byPartners = new Map<string, Family>();
    const familyOf = (members: string[]) => {

        const partners = [...new Set(members)].sort();
        const key = partners.join(' ');
        let family = byPartners.get(key);
        if (!family) {
            family = { xref: nextXref(), partners, children: [] };
            byPartners.set(key, family);
        }

        return family;
    };

    const known = (id: string | undefined, self: string): id is string => id !== undefined && id !== self && links.has(id);
    const asChild = new Map<string, Family>();
    for (const [id, person] of links) {
        const parents = person.parents.filter((parent) => known(parent, id));
        if (parents.length > 0) {
            const family = familyOf(parents);
            family.children.push(id);
            asChild.set(id, family);
        }

        if (known(person.spouse, id)) {
            familyOf([id, person.spouse]);
        }
    }

    const families = [...byPartners.values()];
    const asPartner = new Map<string, Family[]>();
    for (const family of families) {
        family.children.sort(byBirth(links));      // GEDCOM orders children by birth
        for (const partner of family.partners) {
            asPartner.set(partner, [...(asPartner.get(partner) ?? []), family]);
        }
    }

    return { families, asChild, asPartner };
}

/**
 * The family of a person and their spouse, where their marriage and divorce events belong: the
 * couple with the spouse the person names, or, when they name none, the one partner who names
 * them. A person named by several has no one couple to hold the events (nor has one whose own
 * spouse is outside the file), whatever order the export is in.
 */
export function coupleOf(index: FamilyIndex, personId: string, links: Map<string, PersonLinks>): Family | undefined {

    const couples = (index.asPartner.get(personId) ?? []).filter((family) => family.partners.length === 2);
    const partnerIn = (family: Family) => family.partners.find((id) => id !== personId)!;
    const spouse = links.get(personId)?.spouse;
    if (spouse !== undefined) {
        return couples.find((family) => partnerIn(family) === spouse);
    }

    const namedBy = couples.filter((family) => links.get(partnerIn(family))?.spouse === personId);
    return namedBy.length === 1 ? namedBy[0] : undefined;
}
