import { cloudDeps } from '../../shared/cloud';
import { createGroupHandler } from '../../shared/http/handler';
import { useGeneratedValidators } from '../../shared/http/validation';
import { metaRoutes } from '../../shared/meta/routes';
import { sqlPlane } from '../../shared/sql/plane';
import { metaOperations } from './operations';
import { validators } from './validators.generated';

// The route schemas were compiled at build time (`npm run validators`): the cold start only loads them.
useGeneratedValidators(metaRoutes, validators);

export const handler = createGroupHandler('meta', metaOperations, cloudDeps(sqlPlane), metaRoutes);
