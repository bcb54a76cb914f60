import { cloudDeps } from '../../shared/cloud';
import { dataRoutes } from '../../shared/data/routes';
import { createGroupHandler } from '../../shared/http/handler';
import { sqlPlane } from '../../shared/sql/plane';
import { dataOperations } from './operations';

export const handler = createGroupHandler('data', dataOperations, cloudDeps(sqlPlane), dataRoutes);
