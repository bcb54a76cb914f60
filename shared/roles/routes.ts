import type { RouteDef } from '../http/route';

/** Application roles, site roles, memberships and the role hierarchy (doc 2). */
export const roleRoutes: RouteDef[] = [];
