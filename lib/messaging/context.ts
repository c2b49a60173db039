import type { PolicyStore } from '../../gateway/policies/policy-store';
import type { Models } from '../../models';
import type { RunInTransaction } from '../database';
import type { MessagingBus } from './changes';

/** What the messaging services need: the site's pages, the messaging API and the demo hand it over alike. */
export interface MessagingContext {
    models: Models;
    transaction: RunInTransaction;
    bus: MessagingBus;
    /** policies/messaging.yaml's `conversations` and `changes`, read at each call (edits apply without a restart). */
    policyStore: PolicyStore;
}

/** Who acts: a user of the family, as the site's session or a device token says. */
export interface MessagingActor {
    userId: string;
    familyLongId: string;
    /** A family manager may change any group's members and title. */
    isManager: boolean;
}
