import type { PlanPolicy } from '../../gateway/policies/plans';
import { apiError } from '../../lib/errors';
import { bytes } from '../../lib/storage-quota';

/** 413 too_large when a file is larger than the family's plan accepts. */
export function assertUploadSize(plan: PlanPolicy, size: number): void {

    const limit = plan.max_upload_bytes ?? 0;
    if (size > limit) {
        throw apiError(413, 'too_large', limit === 0 ? `The ${plan.label} plan does not include file uploads.` : `The file is ${bytes(size)}; the ${plan.label} plan accepts files up to ${bytes(limit)}.`);
    }
}
