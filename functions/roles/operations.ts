import type { Operations } from '../../shared/http/context';

export const roleOperations: Operations = {};
