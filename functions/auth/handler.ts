import { authRoutes } from '../../shared/auth/routes';
import { cloudDeps } from '../../shared/compose/cloud';
import { createGroupHandler } from '../../shared/http/handler';
import { useGeneratedValidators } from '../../shared/http/validation';
import { socialRoutes } from '../../shared/social/routes';
import { authOperations } from './operations';
import { socialOperations } from './social-operations';
import { validatorLoaders } from './validators/index.generated';

// The route schemas were compiled at build time (`npm run validators`): a route's module loads on its first request.
const routes = [...authRoutes, ...socialRoutes];
useGeneratedValidators(routes, validatorLoaders);

export const handler = createGroupHandler(
  'auth',
  { ...authOperations, ...socialOperations },
  cloudDeps(),
  routes,
);
