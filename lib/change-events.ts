import type { Transaction } from 'sequelize';

import type { Models } from '../models';
import type { ChangeAction, ChangeEvent } from '../models/change-event';

export interface Change {
    family_long_id: string;
    resource: string;
    action: ChangeAction;
    record_id: string;
    revision: number;
}

/**
 * Writes the change to the change log inside the caller's transaction
 * (transactional outbox): the change and its event commit or roll back together.
 */
export function recordChange(models: Models, transaction: Transaction, change: Change): Promise<ChangeEvent> {

    return models.ChangeEvent.create({ ...change, occurred_at: new Date() }, { transaction });
}
