import { cloudDeps } from '../../shared/cloud';
import { createGroupHandler } from '../../shared/http/handler';
import { secretOperations } from './operations';

export const handler = createGroupHandler('secrets', secretOperations, cloudDeps);
