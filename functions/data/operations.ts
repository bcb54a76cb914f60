import type { Operations } from '../../shared/http/context';

export const dataOperations: Operations = {};
