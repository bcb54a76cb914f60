import { cloudDeps } from '../../shared/compose/cloud';
import { createGroupHandler } from '../../shared/http/handler';
import { useGeneratedValidators } from '../../shared/http/validation';
import { authManifest } from './manifest';
import { mfaOperations } from './mfa-operations';
import { authOperations } from './operations';
import { recoveryOperations } from './recovery-operations';
import { sessionListOperations } from './session-list-operations';
import { socialOperations } from './social-operations';
import { validatorLoaders } from './validators/index.generated';

// The route schemas were compiled at build time (`npm run validators`): a route's module loads on its first request.
useGeneratedValidators(authManifest.routes, validatorLoaders);

export const handler = createGroupHandler(
  authManifest,
  {
    ...authOperations,
    ...sessionListOperations,
    ...mfaOperations,
    ...socialOperations,
    ...recoveryOperations,
  },
  cloudDeps(),
);
