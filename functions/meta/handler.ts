import { cloudDeps } from '../../shared/compose/cloud';
import { sqlPlane } from '../../shared/compose/sql-plane';
import { createGroupHandler } from '../../shared/http/handler';
import { useGeneratedValidators } from '../../shared/http/validation';
import { metaManifest } from './manifest';
import { metaOperations } from './operations';
import { validatorLoaders } from './validators/index.generated';

// The route schemas were compiled at build time (`npm run validators`): a route's module loads on its first request.
useGeneratedValidators(metaManifest.routes, validatorLoaders);

export const handler = createGroupHandler(metaManifest, metaOperations, cloudDeps(sqlPlane));
