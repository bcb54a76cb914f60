import { dataMigrations } from '../data/migrations';
import type { Sql } from './client';

/** A versioned change of the platform's own SQL objects; applied once, in order, each in one transaction. */
export interface Migration {
  version: number;
  name: string;
  up: (sql: Sql) => Promise<unknown>;
}

/** The platform's migrations; data-plane domains append theirs here. */
export const migrations: Migration[] = [
  {
    version: 1,
    name: 'platform schema',
    up: (sql) => sql`CREATE SCHEMA IF NOT EXISTS platform`,
  },
  ...dataMigrations,
];

// Any constant shared by every process that migrates: serialises concurrent runs (two deployments, two local starts).
const lockKey = 7_352_114;

/**
 * Applies the migrations that have not run yet; safe to run concurrently. Called by the deploy-time step
 * (functions/migrate) and the local runtime's start, never by a request handler (shared/sql/schema-version.ts).
 * Returns the versions applied.
 */
export async function migrate(sql: Sql, list: readonly Migration[] = migrations): Promise<number[]> {
  await sql`CREATE SCHEMA IF NOT EXISTS platform`;
  await sql`CREATE TABLE IF NOT EXISTS platform.schema_migrations (
    version integer PRIMARY KEY,
    name text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
  )`;
  const applied: number[] = [];
  for (const migration of [...list].sort((a, b) => a.version - b.version)) {
    await sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${lockKey})`;
      const [done] = await tx`SELECT 1 FROM platform.schema_migrations WHERE version = ${migration.version}`;
      if (done) return;
      await migration.up(tx as unknown as Sql);
      await tx`INSERT INTO platform.schema_migrations (version, name) VALUES (${migration.version}, ${migration.name})`;
      applied.push(migration.version);
    });
  }
  return applied;
}
