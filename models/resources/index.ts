import { documents } from './documents';
import { events } from './events';
import { resourceNames, type ResourceDeclaration, type ResourceName } from './fields';
import { finances } from './finances';
import { gallery } from './gallery';
import { history } from './history';
import { persons } from './persons';
import { projects } from './projects';
import { trees } from './trees';

export * from './fields';

/** Every resource of the family API, by name, in the order of DESIGN.md §1. */
export const resources: Readonly<Record<ResourceName, ResourceDeclaration>> = {
    trees, persons, gallery, events, projects, finances, documents, history
};

/** The resources whose records carry a file (gallery, documents). */
export const fileResourceNames = resourceNames.filter((name) => resources[name].storesFile);
