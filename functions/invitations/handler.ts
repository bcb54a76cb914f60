import { cloudDeps } from '../../shared/cloud';
import { createGroupHandler } from '../../shared/http/handler';
import { useGeneratedValidators } from '../../shared/http/validation';
import { invitationRoutes } from '../../shared/invitations/routes';
import { invitationOperations } from './operations';
import { validators } from './validators.generated';

// The route schemas were compiled at build time (`npm run validators`): the cold start only loads them.
useGeneratedValidators(invitationRoutes, validators);

export const handler = createGroupHandler('invitations', invitationOperations, cloudDeps(), invitationRoutes);
