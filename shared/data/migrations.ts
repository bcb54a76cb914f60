import type { Migration } from '../sql/migrations';

/** The data plane's own SQL objects (catalog and friends), versioned after the platform's first migration. */
export const dataMigrations: Migration[] = [];
