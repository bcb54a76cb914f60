import { cloudDeps } from '../../shared/cloud';
import { createGroupHandler } from '../../shared/http/handler';
import { useGeneratedValidators } from '../../shared/http/validation';
import { secretRoutes } from '../../shared/secrets/routes';
import { secretOperations } from './operations';
import { validators } from './validators.generated';

// The route schemas were compiled at build time (`npm run validators`): the cold start only loads them.
useGeneratedValidators(secretRoutes, validators);

export const handler = createGroupHandler('secrets', secretOperations, cloudDeps(), secretRoutes);
