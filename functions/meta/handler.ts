import { cloudDeps } from '../../shared/cloud';
import { createGroupHandler } from '../../shared/http/handler';
import { metaRoutes } from '../../shared/meta/routes';
import { sqlPlane } from '../../shared/sql/plane';
import { metaOperations } from './operations';

export const handler = createGroupHandler('meta', metaOperations, cloudDeps(sqlPlane), metaRoutes);
