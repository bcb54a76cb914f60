import { cloudDeps } from '../../shared/cloud';
import { createGroupHandler } from '../../shared/http/handler';
import { useGeneratedValidators } from '../../shared/http/validation';
import { roleRoutes } from '../../shared/roles/routes';
import { roleOperations } from './operations';
import { validators } from './validators.generated';

// The route schemas were compiled at build time (`npm run validators`): the cold start only loads them.
useGeneratedValidators(roleRoutes, validators);

export const handler = createGroupHandler('roles', roleOperations, cloudDeps(), roleRoutes);
