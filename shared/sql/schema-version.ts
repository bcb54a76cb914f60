import { AppError } from '../errors';
import type { Logger } from '../log';
import type { Sql } from './client';
import { migrations } from './migrations';

/**
 * The request path's side of the migrations: the deploy-time step (functions/migrate) applies them, the local
 * runtime applies them at start, and a request handler only reads which version the database has. DDL from a
 * request handler would queue a burst of cold starts on the migration lock and pin proxy sessions.
 */

/** The newest migration this code was built with: the database must have applied it. */
export const expectedSchemaVersion = Math.max(...migrations.map((migration) => migration.version));

/** The database has not applied every migration this code expects: the migration step did not run or failed. */
export class SchemaBehindError extends AppError {
  override name = 'SchemaBehindError';
  readonly expected: number;
  readonly applied: number;

  constructor(details: { expected: number; applied: number }) {
    super(503, {
      code: 'schema_behind',
      message:
        'The database is not ready for this version of the service (its migrations have not been applied). Try again later.',
      title: 'Service unavailable',
    });
    this.expected = details.expected;
    this.applied = details.applied;
  }
}

/** PostgreSQL's codes for a missing table or schema: a database the migration step never reached. */
const missing = new Set(['42P01', '3F000']);

/** The newest migration version the database has applied, 0 when it has none: one small SELECT, no DDL. */
export async function appliedSchemaVersion(sql: Sql): Promise<number> {
  try {
    const [row] = await sql<{ version: number | null }[]>`
      SELECT max(version) AS version FROM platform.schema_migrations`;
    return row?.version ?? 0;
  } catch (error) {
    if (missing.has((error as { code?: string }).code ?? '')) return 0;
    throw error;
  }
}

/** Throws SchemaBehindError when the database has not applied `expected`. */
export async function assertSchemaCurrent(sql: Sql, expected = expectedSchemaVersion): Promise<void> {
  const applied = await appliedSchemaVersion(sql);
  if (applied < expected) throw new SchemaBehindError({ expected, applied });
}

/** Per data-plane client (one per container: the bound), the check that passed, or the one under way. */
const verified = new WeakMap<Sql, Promise<void>>();

/**
 * Resolves once the database has the schema this code expects; checked once per container (concurrent first
 * requests share the check). A database behind the code is an operational failure: logged as an error on every
 * request it refuses with 503, and checked again on the next request, so the container recovers once the
 * migration step has run.
 */
export async function requireCurrentSchema(
  sql: Sql,
  log: Logger,
  expected = expectedSchemaVersion,
): Promise<void> {
  let check = verified.get(sql);
  if (!check) {
    check = assertSchemaCurrent(sql, expected);
    verified.set(sql, check);
    check.catch(() => verified.delete(sql));
  }
  try {
    await check;
  } catch (error) {
    if (error instanceof SchemaBehindError) {
      log.error('database schema is behind the code: run the migration step', {
        expected_version: error.expected,
        applied_version: error.applied,
      });
    }
    throw error;
  }
}
