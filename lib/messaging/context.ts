import type { Transaction } from 'sequelize';

import type { PolicyStore } from '../../gateway/policies/policy-store';
import type { Models } from '../../models';
import type { MessageAttachment } from '../../models/message';
import type { RunInTransaction } from '../database';
import type { MessagingBus } from './changes';

/** What the messaging services need: the site's pages, the messaging API and the demo hand it over alike. */
export interface MessagingContext {
    models: Models;
    transaction: RunInTransaction;
    bus: MessagingBus;
    /** policies/messaging.yaml's `conversations` and `changes`, read at each call (edits apply without a restart). */
    policyStore: PolicyStore;
    uploads: MessageUploads;
}

/** The messaging uploads (lib/messaging/uploads.ts) as messages take and give back their files, in the message's transaction. */
export interface MessageUploads {
    /**
     * Checks the actor's uploads against the family's storage quota and the attachment policy now, and claims them for
     * the message; refuses with a ServiceError (`quota_exceeded`, `attachment_policy`, `not_found`, `upload_incomplete`, `conflict`).
     */
    claim(actor: MessagingActor, messageId: string, uploadIds: readonly string[], transaction: Transaction): Promise<MessageAttachment[]>;
    /** Deletes a deleted message's files: their rows now, their bytes once the transaction commits. */
    release(familyLongId: string, uploadIds: readonly string[], transaction: Transaction): Promise<void>;
}

/** Who acts: a user of the family, as the site's session or a device token says. */
export interface MessagingActor {
    userId: string;
    familyLongId: string;
    /** A family manager may change any group's members and title. */
    isManager: boolean;
}
