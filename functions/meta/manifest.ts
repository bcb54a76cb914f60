import { defineGroup } from '../../shared/api/group';
import { metaRoutes } from '../../shared/meta/routes';

/** The meta endpoint group: the platform's own description and health. */
export const metaManifest = defineGroup({
  name: 'meta',
  description: 'The API description, its explorer and the health check',
  envelope: 'detail',
  routes: metaRoutes,
  needs: {
    // Public routes only (health, API description): the health check describes the table, and reads nothing of it.
    table: ['dynamodb:DescribeTable'],
    // The health check reads the data plane's schema version, so this function sits beside the data function; it
    // reads the migration version alone, with a read-only login of its own.
    sql: 'health',
  },
});
