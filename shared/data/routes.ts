import type { RouteDef } from '../http/route';

/** Data tables: table schemas and records (doc 3). */
export const dataRoutes: RouteDef[] = [];
