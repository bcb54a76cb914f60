import type { GroupRegistry } from '../shared/http/context';
import { accountOperations } from './accounts/operations';
import { mfaOperations } from './auth/mfa-operations';
import { authOperations } from './auth/operations';
import { recoveryOperations } from './auth/recovery-operations';
import { sessionListOperations } from './auth/session-list-operations';
import { socialOperations } from './auth/social-operations';
import { dataOperations } from './data/operations';
import { eventOperations } from './events/operations';
import { groups } from './groups';
import { invitationOperations } from './invitations/operations';
import { metaOperations } from './meta/operations';
import { pageOperations } from './pages/operations';
import { roleOperations } from './roles/operations';
import { secretOperations } from './secrets/operations';

/**
 * Every group's manifest with its operations, for the local server (the cloud loads one group per Lambda,
 * functions/<group>/handler.ts).
 */
export const registry: GroupRegistry = {
  auth: {
    manifest: groups.auth,
    operations: {
      ...authOperations,
      ...sessionListOperations,
      ...mfaOperations,
      ...socialOperations,
      ...recoveryOperations,
    },
  },
  accounts: { manifest: groups.accounts, operations: accountOperations },
  roles: { manifest: groups.roles, operations: roleOperations },
  secrets: { manifest: groups.secrets, operations: secretOperations },
  data: { manifest: groups.data, operations: dataOperations },
  meta: { manifest: groups.meta, operations: metaOperations },
  invitations: { manifest: groups.invitations, operations: invitationOperations },
  events: { manifest: groups.events, operations: eventOperations },
  pages: { manifest: groups.pages, operations: pageOperations },
};
