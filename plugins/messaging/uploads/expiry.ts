import { Op } from 'sequelize';

import { JobFailures } from '../../../lib/job-failures';
import { PolicyCronJobs } from '../../../lib/policy-cron';
import type { UploadsContext } from './context';

/**
 * Removes the uploads past their `expires_at` that no message holds: unfinished ones (their Upload-Expires)
 * and finished ones never attached. The row goes first, so the quota is freed at once; the bytes after.
 * Instances running it at once each remove a row once: whoever deletes it removes its bytes. Resolves to how many.
 */
export async function deleteExpiredUploads(context: Pick<UploadsContext, 'models' | 'files'>, now = new Date()): Promise<number> {

    const expired = { message_id: null, expires_at: { [Op.lt]: now } };
    const rows = await context.models.MessagingUpload.findAll({ attributes: ['id'], where: expired });
    let removed = 0;
    for (const { id } of rows) {
        if (await context.models.MessagingUpload.destroy({ where: { id, ...expired } }) === 1) {
            await context.files.remove(id);
            removed += 1;
        }
    }

    return removed;
}

/** That removal on the schedule of policies/messaging.yaml (`uploads.cleanup_schedule`), following reloads. */
export function expiredUploadsCleanup(context: UploadsContext): PolicyCronJobs {

    const failures = new JobFailures(context.log, ['messaging'], 'Removing expired uploads');
    return new PolicyCronJobs(context.policyStore, [{
        schedule: (policies) => policies.messaging.uploads.cleanup_schedule,
        run: () => void failures.run(() => deleteExpiredUploads(context))
    }]);
}
