import { defineGroup, tableReads, tableWrites } from '../../shared/api/group';
import { roleRoutes } from '../../shared/roles/routes';

/** The roles endpoint group. */
export const rolesManifest = defineGroup({
  name: 'roles',
  description: 'Application roles, site roles, memberships and the role hierarchy',
  envelope: 'roles',
  routes: roleRoutes,
  needs: {
    // Roles and memberships: transactions with deletes and condition checks; memberships removed in batches.
    table: [...tableReads, ...tableWrites, 'dynamodb:BatchWriteItem'],
  },
});
