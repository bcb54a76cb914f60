import { defineGroup, tableReads, tableWrites } from '../../shared/api/group';
import { invitationRoutes } from '../../shared/invitations/routes';

/** The invitations endpoint group. */
export const invitationsManifest = defineGroup({
  name: 'invitations',
  description: 'Organization invitations: create, list, resend, cancel; public details and acceptance',
  envelope: 'detail',
  // Acceptance adds memberships and site permissions.
  changesAccess: true,
  routes: invitationRoutes,
  needs: {
    // Invitations, the placeholder users, acceptance in one transaction, failure windows of the public endpoints.
    table: [...tableReads, ...tableWrites],
    // Sends the invitation e-mail, with a link to the acceptance page.
    mail: true,
    // Invitations create placeholder users.
    createsUsers: true,
  },
});
