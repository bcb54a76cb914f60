import type { OperationsByGroup } from '../shared/http/context';
import { accountOperations } from './accounts/operations';
import { authOperations } from './auth/operations';
import { socialOperations } from './auth/social-operations';
import { dataOperations } from './data/operations';
import { eventOperations } from './events/operations';
import { invitationOperations } from './invitations/operations';
import { metaOperations } from './meta/operations';
import { pageOperations } from './pages/operations';
import { roleOperations } from './roles/operations';
import { secretOperations } from './secrets/operations';

/** Every group's operations, for the local server (the cloud loads one group per Lambda). */
export const operationsByGroup: OperationsByGroup = {
  auth: { ...authOperations, ...socialOperations },
  accounts: accountOperations,
  roles: roleOperations,
  secrets: secretOperations,
  data: dataOperations,
  meta: metaOperations,
  invitations: invitationOperations,
  events: eventOperations,
  pages: pageOperations,
};
