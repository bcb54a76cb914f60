import { defineGroup, tableReads } from '../../shared/api/group';
import { dataRoutes } from '../../shared/data/routes';

/** The data endpoint group: data tables and their records, in PostgreSQL. */
export const dataManifest = defineGroup({
  name: 'data',
  description: 'Data tables: table schemas and records',
  envelope: 'data',
  routes: dataRoutes,
  needs: {
    // Records live in PostgreSQL: the table only answers who the caller is and what the site allows.
    table: [...tableReads],
    sql: 'app',
  },
});
