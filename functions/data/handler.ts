import { cloudDeps } from '../../shared/cloud';
import { dataRoutes } from '../../shared/data/routes';
import { createGroupHandler } from '../../shared/http/handler';
import { useGeneratedValidators } from '../../shared/http/validation';
import { sqlPlane } from '../../shared/sql/plane';
import { dataOperations } from './operations';
import { validators } from './validators.generated';

// The route schemas were compiled at build time (`npm run validators`): the cold start only loads them.
useGeneratedValidators(dataRoutes, validators);

export const handler = createGroupHandler('data', dataOperations, cloudDeps(sqlPlane), dataRoutes);
