import type { ServerRoute } from '@hapi/hapi';

import type { SiteContext } from '../context';
import { auditRoutes } from './audit-routes';
import { familiesRoutes } from './families-routes';
import { familyRoutes } from './family-routes';
import { adminKeyRoutes } from './key-routes';

/** The super-admin area: every family's API use, suspensions, any key, the audit log. */
export function adminRoutes(context: SiteContext): ServerRoute[] {

    return [...familiesRoutes(context), ...familyRoutes(context), ...adminKeyRoutes(context), ...auditRoutes(context)];
}
