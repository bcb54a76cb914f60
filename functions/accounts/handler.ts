import { accountRoutes } from '../../shared/accounts/routes';
import { cloudDeps } from '../../shared/cloud';
import { createGroupHandler } from '../../shared/http/handler';
import { accountOperations } from './operations';

export const handler = createGroupHandler('accounts', accountOperations, cloudDeps(), accountRoutes);
