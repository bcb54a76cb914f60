import { accountRoutes } from '../../shared/accounts/routes';
import { organizationGroupRoutes } from '../../shared/groups/routes';

/** The accounts endpoint group: accounts, organizations, sites and apps, then the organizations' groups. */
export const accountGroupRoutes = [...accountRoutes, ...organizationGroupRoutes] as const;
