import type { GroupManifest } from '../shared/api/group';
import type { GroupName, RouteDef } from '../shared/api/route';
import { accountsManifest } from './accounts/manifest';
import { authManifest } from './auth/manifest';
import { dataManifest } from './data/manifest';
import { eventsManifest } from './events/manifest';
import { invitationsManifest } from './invitations/manifest';
import { metaManifest } from './meta/manifest';
import { pagesManifest } from './pages/manifest';
import { rolesManifest } from './roles/manifest';
import { secretsManifest } from './secrets/manifest';

/**
 * Every endpoint group's manifest (functions/<group>/manifest.ts), one Lambda each, in the route table's order. The
 * route table, the local server, the OpenAPI document, the build tools and the CDK stack read them from here; a
 * group's Lambda imports only its own manifest (functions/<group>/handler.ts).
 */
export const groups: Readonly<Record<GroupName, GroupManifest>> = {
  auth: authManifest,
  accounts: accountsManifest,
  roles: rolesManifest,
  secrets: secretsManifest,
  data: dataManifest,
  meta: metaManifest,
  invitations: invitationsManifest,
  events: eventsManifest,
  pages: pagesManifest,
};

for (const [name, manifest] of Object.entries(groups)) {
  if (manifest.name !== name) throw new Error(`The manifest under ${name} is group ${manifest.name}`);
}

/** The one route table of the platform: every group's routes and schemas, each group's as its manifest lists them. */
export const routes: readonly RouteDef[] = Object.values(groups).flatMap((group) => group.routes);

/** The routes of one endpoint group. */
export function routesOf(group: GroupName): readonly RouteDef[] {
  return groups[group].routes;
}
