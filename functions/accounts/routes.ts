import { accountRoutes } from '../../shared/accounts/routes';
import { organizationGroupRoutes } from '../../shared/groups/routes';
import { deletionRoutes } from '../../shared/lifecycle/routes';

/** The accounts endpoint group: accounts, organizations, sites and apps, then the organizations' groups, then deletions. */
export const accountGroupRoutes = [...accountRoutes, ...organizationGroupRoutes, ...deletionRoutes] as const;
