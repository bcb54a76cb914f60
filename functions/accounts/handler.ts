import { cloudDeps } from '../../shared/compose/cloud';
import { createGroupHandler } from '../../shared/http/handler';
import { useGeneratedValidators } from '../../shared/http/validation';
import { accountsManifest } from './manifest';
import { accountOperations } from './operations';
import { validatorLoaders } from './validators/index.generated';

// The route schemas were compiled at build time (`npm run validators`): a route's module loads on its first request.
useGeneratedValidators(accountsManifest.routes, validatorLoaders);

export const handler = createGroupHandler(accountsManifest, accountOperations, cloudDeps());
