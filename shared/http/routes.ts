import { accountRoutes } from '../accounts/routes';
import type { GroupName, RouteDef } from '../api/route';
import { authRoutes } from '../auth/routes';
import { dataRoutes } from '../data/routes';
import { eventRoutes } from '../events/routes';
import { organizationGroupRoutes } from '../groups/routes';
import { invitationRoutes } from '../invitations/routes';
import { deletionRoutes } from '../lifecycle/routes';
import { metaRoutes } from '../meta/routes';
import { pageRoutes } from '../pages/routes';
import { roleRoutes } from '../roles/routes';
import { secretRoutes } from '../secrets/routes';
import { socialRoutes } from '../social/routes';
import { groups } from './groups';

export { groups };

/**
 * The one route table of the platform: every group's routes and schemas. The local server, the CDK stack and the
 * OpenAPI document use it; a group's Lambda imports only its own group's routes (functions/<group>/handler.ts).
 */
export const routes: readonly RouteDef[] = [
  ...authRoutes,
  ...socialRoutes,
  ...accountRoutes,
  ...organizationGroupRoutes,
  ...deletionRoutes,
  ...roleRoutes,
  ...secretRoutes,
  ...dataRoutes,
  ...metaRoutes,
  ...invitationRoutes,
  ...eventRoutes,
  ...pageRoutes,
];

/** The routes of one endpoint group. */
export function routesOf(group: GroupName): RouteDef[] {
  return routes.filter((route) => route.group === group);
}
