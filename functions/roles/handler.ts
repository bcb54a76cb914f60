import { cloudDeps } from '../../shared/cloud';
import { createGroupHandler } from '../../shared/http/handler';
import { roleRoutes } from '../../shared/roles/routes';
import { roleOperations } from './operations';

export const handler = createGroupHandler('roles', roleOperations, cloudDeps(), roleRoutes);
