import { cloudDeps } from '../../shared/compose/cloud';
import { createGroupHandler } from '../../shared/http/handler';
import { useGeneratedValidators } from '../../shared/http/validation';
import { accountOperations } from './operations';
import { accountGroupRoutes } from './routes';
import { validatorLoaders } from './validators/index.generated';

// The route schemas were compiled at build time (`npm run validators`): a route's module loads on its first request.
useGeneratedValidators(accountGroupRoutes, validatorLoaders);

export const handler = createGroupHandler('accounts', accountOperations, cloudDeps(), accountGroupRoutes);
