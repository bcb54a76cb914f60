import { cloudDeps } from '../../shared/compose/cloud';
import { createGroupHandler } from '../../shared/http/handler';
import { useGeneratedValidators } from '../../shared/http/validation';
import { invitationsManifest } from './manifest';
import { invitationOperations } from './operations';
import { validatorLoaders } from './validators/index.generated';

// The route schemas were compiled at build time (`npm run validators`): a route's module loads on its first request.
useGeneratedValidators(invitationsManifest.routes, validatorLoaders);

export const handler = createGroupHandler(invitationsManifest, invitationOperations, cloudDeps());
