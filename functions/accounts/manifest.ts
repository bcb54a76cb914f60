import { accountRoutes } from '../../shared/accounts/routes';
import { defineGroup, tableReads, tableWrites } from '../../shared/api/group';
import { apiKeyRoutes } from '../../shared/api-keys/routes';
import { organizationGroupRoutes } from '../../shared/groups/routes';
import { deletionRoutes } from '../../shared/lifecycle/routes';
import { organizationMfaRoutes } from '../../shared/mfa/organization-routes';

/** The accounts endpoint group: accounts, organizations, sites and apps, then the organizations' groups, then deletions. */
export const accountsManifest = defineGroup({
  name: 'accounts',
  description: 'Users, organizations, sites, site permissions and apps',
  envelope: 'detail',
  changesAccess: true,
  routes: [
    ...accountRoutes,
    ...apiKeyRoutes,
    ...organizationMfaRoutes,
    ...organizationGroupRoutes,
    ...deletionRoutes,
  ],
  needs: {
    // Users, organizations, sites, permissions and apps: conditional puts, updates and transactions of both.
    // Organization groups: renames and deletions delete name sentinels and memberships; adding a member checks
    // the organization membership and the group in its transaction. The browser session that changed its user's
    // password (Update); the sign-in failure window that a confirmed current password clears (Delete).
    table: [...tableReads, ...tableWrites],
    // Admins create users.
    createsUsers: true,
    // A superuser sends someone a password reset link (POST /api/cloud/users/{user_id}/password-reset/).
    mail: true,
    // No `sql`: deleting an app drops its data tables and deleting a site (or its organization) the site's schema,
    // but in the cloud those steps are the deletion sweeper's (docs/lifecycle.md, "In the cloud"), so this
    // function stays out of the VPC, and the VPC needs no Step Functions or Lambda endpoint for it.
  },
});
