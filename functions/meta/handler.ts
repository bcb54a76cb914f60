import { cloudDeps } from '../../shared/cloud';
import { createGroupHandler } from '../../shared/http/handler';
import { metaOperations } from './operations';

export const handler = createGroupHandler('meta', metaOperations, cloudDeps);
