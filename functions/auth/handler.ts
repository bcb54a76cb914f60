import { authRoutes } from '../../shared/auth/routes';
import { cloudDeps } from '../../shared/cloud';
import { createGroupHandler } from '../../shared/http/handler';
import { authOperations } from './operations';

export const handler = createGroupHandler('auth', authOperations, cloudDeps(), authRoutes);
