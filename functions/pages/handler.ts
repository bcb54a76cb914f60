import { cloudDeps } from '../../shared/compose/cloud';
import { createGroupHandler } from '../../shared/http/handler';
import { useGeneratedValidators } from '../../shared/http/validation';
import { validatorLoaders as accountValidators } from '../accounts/validators/index.generated';
import { validatorLoaders as authValidators } from '../auth/validators/index.generated';
import { validatorLoaders as invitationValidators } from '../invitations/validators/index.generated';
import { readRoutes } from './api';
import { pagesManifest } from './manifest';
import { pageOperations } from './operations';
import { validatorLoaders } from './validators/index.generated';

// The route schemas were compiled at build time (`npm run validators`): a route's module loads on its first request.
useGeneratedValidators(pagesManifest.routes, validatorLoaders);
// The API routes the pages read in-process (pages/api.ts) validate with their own groups' generated modules.
useGeneratedValidators(
  readRoutes.filter((route) => route.group === 'accounts'),
  accountValidators,
);
useGeneratedValidators(
  readRoutes.filter((route) => route.group === 'auth'),
  authValidators,
);
useGeneratedValidators(
  readRoutes.filter((route) => route.group === 'invitations'),
  invitationValidators,
);

export const handler = createGroupHandler(pagesManifest, pageOperations, cloudDeps());
