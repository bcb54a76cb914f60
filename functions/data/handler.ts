import { cloudDeps } from '../../shared/cloud';
import { createGroupHandler } from '../../shared/http/handler';
import { dataOperations } from './operations';

export const handler = createGroupHandler('data', dataOperations, cloudDeps);
