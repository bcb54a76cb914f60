import type { Sql } from './client';

/** A versioned change of the platform's own SQL objects; applied once, in order, each in one transaction. */
export interface Migration {
  version: number;
  name: string;
  up: (sql: Sql) => Promise<unknown>;
}

/**
 * The platform's migrations: its own schema, then the data plane's own SQL objects (catalog and friends), versioned
 * from 100.
 */
export const migrations: Migration[] = [
  {
    version: 1,
    name: 'platform schema',
    up: (sql) => sql`CREATE SCHEMA IF NOT EXISTS platform`,
  },
  {
    version: 100,
    name: 'data: site schema registry',
    // One row per site that has data tables: its schema (shared/data/schema/names.ts) and the layout version of its catalog, so that
    // a later change of the catalog's own shape can find and upgrade every site.
    up: (sql) => sql`CREATE TABLE IF NOT EXISTS platform.data_site_schemas (
      site text PRIMARY KEY,
      schema_name text NOT NULL UNIQUE,
      layout_version integer NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`,
  },
  {
    version: 101,
    name: 'data: DDL runner',
    // DDL takes no bind parameters: shared/data/tables/ddl.ts sends constant templates with %I/%L placeholders and the names
    // and values as parameters; format() quotes them on the server.
    up: (sql) => sql`CREATE OR REPLACE FUNCTION platform.execute_ddl(template text, args text[])
      RETURNS void LANGUAGE plpgsql AS $$
      BEGIN
        EXECUTE format(template, VARIADIC args);
      END
      $$`,
  },
  {
    version: 102,
    name: 'data: site and app identities beside each table',
    // The registry and every catalog record whose site and app (by their creation time in the control plane) the
    // rows belong to, so that a site or app that got an old slug or id again after the stores were restored to
    // different moments is refused instead of served the old rows (data/tables/identity.ts). Existing rows stay null and
    // are claimed by their first request. The catalogs' schema names are quoted by the DDL runner of 101 (%I).
    up: async (sql) => {
      await sql`ALTER TABLE platform.data_site_schemas ADD COLUMN IF NOT EXISTS site_identity text`;
      const sites = await sql<{ schema_name: string }[]>`SELECT schema_name FROM platform.data_site_schemas
        WHERE layout_version < 2 ORDER BY schema_name`;
      const addColumns =
        'ALTER TABLE %I.catalog ADD COLUMN IF NOT EXISTS site_identity text, ADD COLUMN IF NOT EXISTS app_identity text';
      for (const { schema_name } of sites)
        await sql`SELECT platform.execute_ddl(${addColumns}, ${[schema_name]})`;
      await sql`UPDATE platform.data_site_schemas SET layout_version = 2 WHERE layout_version < 2`;
    },
  },
  {
    version: 110,
    name: 'webhooks: endpoints, the record events outbox and deliveries',
    // docs/events.md, "Record events and webhooks". One outbox for every site, keyed by the site: a record write
    // inserts its events and their deliveries in its own transaction (shared/webhooks/outbox.ts), only when an
    // endpoint of the app listens to the table. The dispatcher (shared/webhooks/dispatcher.ts) takes due deliveries
    // in id order, one record's deliveries to one endpoint strictly one after the other.
    up: async (sql) => {
      await sql`CREATE TABLE IF NOT EXISTS platform.webhook_endpoints (
        id bigserial PRIMARY KEY,
        site text NOT NULL,
        app_id bigint NOT NULL,
        app_slug text NOT NULL,
        url text NOT NULL,
        events text[] NOT NULL,
        tables text[] NOT NULL,
        secret jsonb NOT NULL,
        enabled boolean NOT NULL DEFAULT true,
        disabled_reason text,
        failing_since timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`;
      await sql`CREATE INDEX IF NOT EXISTS webhook_endpoints_app ON platform.webhook_endpoints (site, app_id)`;
      await sql`CREATE TABLE IF NOT EXISTS platform.record_events (
        id bigserial PRIMARY KEY,
        event_id uuid NOT NULL UNIQUE DEFAULT gen_random_uuid(),
        site text NOT NULL,
        app_id bigint NOT NULL,
        app_slug text NOT NULL,
        table_name text NOT NULL,
        record_key text NOT NULL,
        event text NOT NULL,
        data jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`;
      await sql`CREATE INDEX IF NOT EXISTS record_events_app_time ON platform.record_events (site, app_id, created_at)`;
      await sql`CREATE TABLE IF NOT EXISTS platform.webhook_deliveries (
        id bigserial PRIMARY KEY,
        endpoint_id bigint NOT NULL REFERENCES platform.webhook_endpoints (id) ON DELETE CASCADE,
        event_row bigint NOT NULL REFERENCES platform.record_events (id) ON DELETE CASCADE,
        record_ref text NOT NULL,
        status text NOT NULL DEFAULT 'pending',
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        created_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz,
        last_status integer,
        last_error text
      )`;
      await sql`CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON platform.webhook_deliveries (next_attempt_at, id)
        WHERE status = 'pending'`;
      await sql`CREATE INDEX IF NOT EXISTS webhook_deliveries_record ON platform.webhook_deliveries (endpoint_id, record_ref, id)
        WHERE status = 'pending'`;
      await sql`CREATE INDEX IF NOT EXISTS webhook_deliveries_endpoint ON platform.webhook_deliveries (endpoint_id, status, id)`;
      await sql`CREATE TABLE IF NOT EXISTS platform.webhook_attempts (
        id bigserial PRIMARY KEY,
        endpoint_id bigint NOT NULL REFERENCES platform.webhook_endpoints (id) ON DELETE CASCADE,
        delivery_id bigint NOT NULL REFERENCES platform.webhook_deliveries (id) ON DELETE CASCADE,
        attempted_at timestamptz NOT NULL DEFAULT now(),
        status_code integer,
        latency_ms integer NOT NULL,
        error text
      )`;
      await sql`CREATE INDEX IF NOT EXISTS webhook_attempts_endpoint ON platform.webhook_attempts (endpoint_id, id)`;
      // The single-statement insert of a record (shared/data/records/writes.ts) calls this in its RETURNING list:
      // when an endpoint listens, the statement fails (and inserts nothing) and the transactional path, which
      // writes the outbox, runs instead. The check is in the same statement as the write, so it is never stale.
      await sql`CREATE OR REPLACE FUNCTION platform.webhooks_unlistened(p_site text, p_app bigint, p_table text)
        RETURNS boolean LANGUAGE plpgsql STABLE AS $$
        BEGIN
          IF EXISTS (SELECT 1 FROM platform.webhook_endpoints
                     WHERE site = p_site AND app_id = p_app AND enabled
                       AND (cardinality(tables) = 0 OR p_table = ANY (tables))) THEN
            RAISE EXCEPTION 'an endpoint listens to this table' USING ERRCODE = 'TB001';
          END IF;
          RETURN true;
        END
        $$`;
    },
  },
];

// Any constant shared by every process that migrates: serialises concurrent runs (two deployments, two local starts).
const lockKey = 7_352_114;

/** A migration's own statement timeout, longer than a request's (a migration may rewrite every site's catalog). */
export const migrationStatementTimeoutMs = 5 * 60 * 1000;

export interface MigrateOptions {
  /** The role the migrations run as (`SET LOCAL ROLE`), so that what they create belongs to it. */
  readonly role?: string;
  /**
   * A migration that waits for a lock held by live requests fails after this long (the deployment rolls back)
   * instead of queueing every later request behind its own lock request.
   */
  readonly lockTimeoutMs?: number;
}

const identifier = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * Runs `work` in a transaction with the migration's role and limits, each `SET LOCAL`: they end with the
 * transaction, so a pooled connection (RDS Proxy, PgBouncer) is handed on as it was, and nothing pins it. The
 * transaction-level advisory lock (`pg_advisory_xact_lock`) does not pin RDS Proxy either.
 */
export async function inMigrationTransaction<T>(
  sql: Sql,
  options: MigrateOptions,
  work: (tx: Sql) => Promise<T>,
): Promise<T> {
  return (await sql.begin(async (tx) => {
    await tx.unsafe(`SET LOCAL statement_timeout = ${migrationStatementTimeoutMs}`);
    if (options.lockTimeoutMs !== undefined)
      await tx.unsafe(`SET LOCAL lock_timeout = ${Math.max(1, Math.trunc(options.lockTimeoutMs))}`);
    if (options.role !== undefined) await tx.unsafe(`SET LOCAL ROLE ${identifier(options.role)}`);
    return work(tx as unknown as Sql);
  })) as T;
}

/**
 * Applies the migrations that have not run yet; safe to run concurrently. Called by the deploy-time step
 * (functions/migrate, through shared/sql/login-role.ts) and the local runtime's start, never by a request handler
 * (shared/sql/schema-version.ts). Each migration is one transaction with its limits as `SET LOCAL`
 * (`inMigrationTransaction`). Returns the versions applied.
 */
export async function migrate(
  sql: Sql,
  list: readonly Migration[] = migrations,
  options: MigrateOptions = {},
): Promise<number[]> {
  await inMigrationTransaction(sql, options, async (tx) => {
    await tx`CREATE SCHEMA IF NOT EXISTS platform`;
    await tx`CREATE TABLE IF NOT EXISTS platform.schema_migrations (
      version integer PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`;
  });
  const applied: number[] = [];
  for (const migration of [...list].sort((a, b) => a.version - b.version)) {
    await inMigrationTransaction(sql, options, async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${lockKey})`;
      const [done] = await tx`SELECT 1 FROM platform.schema_migrations WHERE version = ${migration.version}`;
      if (done) return;
      await migration.up(tx);
      await tx`INSERT INTO platform.schema_migrations (version, name) VALUES (${migration.version}, ${migration.name})`;
      applied.push(migration.version);
    });
  }
  return applied;
}
