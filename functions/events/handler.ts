import { cloudDeps } from '../../shared/cloud';
import { eventRoutes } from '../../shared/events/routes';
import { createGroupHandler } from '../../shared/http/handler';
import { useGeneratedValidators } from '../../shared/http/validation';
import { eventOperations } from './operations';
import { validators } from './validators.generated';

// The route schemas were compiled at build time (`npm run validators`): the cold start only loads them.
useGeneratedValidators(eventRoutes, validators);

export const handler = createGroupHandler('events', eventOperations, cloudDeps(), eventRoutes);
