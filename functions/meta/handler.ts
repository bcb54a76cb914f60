import { cloudDeps } from '../../shared/compose/cloud';
import { sqlPlane } from '../../shared/compose/sql-plane';
import { createGroupHandler } from '../../shared/http/handler';
import { useGeneratedValidators } from '../../shared/http/validation';
import { metaRoutes } from '../../shared/meta/routes';
import { metaOperations } from './operations';
import { validatorLoaders } from './validators/index.generated';

// The route schemas were compiled at build time (`npm run validators`): a route's module loads on its first request.
useGeneratedValidators(metaRoutes, validatorLoaders);

export const handler = createGroupHandler('meta', metaOperations, cloudDeps(sqlPlane), metaRoutes);
