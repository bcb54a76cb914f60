import { accountRoutes } from '../../shared/accounts/routes';
import { cloudDeps } from '../../shared/cloud';
import { createGroupHandler } from '../../shared/http/handler';
import { useGeneratedValidators } from '../../shared/http/validation';
import { accountOperations } from './operations';
import { validators } from './validators.generated';

// The route schemas were compiled at build time (`npm run validators`): the cold start only loads them.
useGeneratedValidators(accountRoutes, validators);

export const handler = createGroupHandler('accounts', accountOperations, cloudDeps(), accountRoutes);
