import { cloudDeps } from '../../shared/compose/cloud';
import { eventRoutes } from '../../shared/events/routes';
import { createGroupHandler } from '../../shared/http/handler';
import { useGeneratedValidators } from '../../shared/http/validation';
import { eventOperations } from './operations';
import { validatorLoaders } from './validators/index.generated';

// The route schemas were compiled at build time (`npm run validators`): a route's module loads on its first request.
useGeneratedValidators(eventRoutes, validatorLoaders);

export const handler = createGroupHandler('events', eventOperations, cloudDeps(), eventRoutes);
