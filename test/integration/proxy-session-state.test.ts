import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createSql } from '../../shared/sql/client';
import { prepareDatabase } from '../../shared/sql/login-role';
import { createTable, dataPath, insert, tablePath } from '../support/data';
import { privateDatabase, startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant } from '../support/tenant';

/**
 * Behind a transaction-pooling proxy (CI's PgBouncer pass: DATABASE_URL at the pooler, DATABASE_PROXY=true), a
 * server connection serves one client's transaction, then another's: whatever a request leaves in the session (a
 * setting, a lock, a temporary table, a prepared statement, a LISTEN, a role) would be seen by the next client, and
 * RDS Proxy would pin the session instead (docs/deploying.md, "What pins an RDS Proxy session"). Skipped on the
 * embedded stores and on a direct PostgreSQL, where there is no pooler to share connections.
 */

const proxied = inject('databaseProxy');
const pooler = inject('databaseUrl');

type Client = postgres.Sql;

/** A client of the pooler as the platform's: no named prepared statements, nothing but the user in the startup. */
function client(url: string): Client {
  return postgres(url, { max: 1, prepare: false, onnotice: () => {}, connection: { application_name: '' } });
}

/** What a session holds beyond its role's defaults, as the session itself sees it. */
interface SessionState {
  pid: number;
  /** Settings changed by SET (or set_config) outside a transaction, but the two the pooler sets per client. */
  settings: string[];
  advisoryLocks: number;
  temporaryObjects: number;
  preparedStatements: number;
  cursors: number;
  channels: number;
  /** Whether a SET ROLE or SET SESSION AUTHORIZATION is in force. */
  otherRole: boolean;
  statementTimeout: string;
  timeZone: string;
}

async function sessionState(sql: Client | postgres.TransactionSql): Promise<SessionState> {
  const [row] = await sql<SessionState[]>`SELECT pg_backend_pid() AS pid,
    ARRAY(SELECT name FROM pg_settings WHERE source = 'session'
      AND name NOT IN ('application_name', 'client_encoding') ORDER BY name) AS settings,
    (SELECT count(*)::int FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()) AS "advisoryLocks",
    (SELECT count(*)::int FROM pg_class WHERE relnamespace = pg_my_temp_schema()) AS "temporaryObjects",
    (SELECT count(*)::int FROM pg_prepared_statements) AS "preparedStatements",
    (SELECT count(*)::int FROM pg_cursors WHERE name <> '') AS cursors,
    (SELECT count(*)::int FROM pg_listening_channels()) AS channels,
    current_user <> session_user AS "otherRole",
    current_setting('statement_timeout') AS "statementTimeout", current_setting('TimeZone') AS "timeZone"`;
  return row as SessionState;
}

const clean = {
  settings: [],
  advisoryLocks: 0,
  temporaryObjects: 0,
  preparedStatements: 0,
  cursors: 0,
  channels: 0,
};

/** The pooler's server connections to `database` (its admin console: `SHOW SERVERS`), by backend pid. */
async function serverPids(database: string): Promise<number[]> {
  const url = new URL(pooler as string);
  url.pathname = '/pgbouncer';
  const admin = postgres(url.toString(), { max: 1, prepare: false, fetch_types: false, onnotice: () => {} });
  try {
    const rows = await admin.unsafe('SHOW SERVERS').simple();
    return (rows as unknown as { database: string; remote_pid: number }[])
      .filter((row) => row.database === database)
      .map((row) => Number(row.remote_pid))
      .sort((a, b) => a - b);
  } finally {
    await admin.end();
  }
}

/**
 * The state of every server connection the pooler holds to `database`: as many clients as it has connections, each
 * in a transaction held open until all have theirs, so that each lands on another one.
 */
async function everyServerState(url: string, database: string): Promise<SessionState[]> {
  const pids = await serverPids(database);
  expect(pids.length).toBeGreaterThan(0);
  const clients = pids.map(() => client(url));
  try {
    let arrived = 0;
    let release: () => void = () => {};
    const all = new Promise<void>((resolve) => {
      release = resolve;
    });
    const states = await Promise.all(
      clients.map((sql) =>
        sql.begin(async (tx) => {
          const state = await sessionState(tx);
          arrived += 1;
          if (arrived === clients.length) release();
          await all;
          return state;
        }),
      ),
    );
    expect(states.map((state) => state.pid).sort((a, b) => a - b)).toEqual(pids);
    return states;
  } finally {
    await Promise.all(clients.map((sql) => sql.end()));
  }
}

describe.runIf(proxied)('behind a transaction-pooling proxy', () => {
  let database: Awaited<ReturnType<typeof privateDatabase>>;
  let name: string;
  beforeAll(async () => {
    database = await privateDatabase(pooler as string);
    name = new URL(database.url).pathname.slice(1);
  });
  afterAll(async () => {
    await database?.drop();
    const sql = client(pooler as string);
    try {
      await sql.unsafe('DROP ROLE IF EXISTS platform_proxy_app, platform_proxy_health');
    } finally {
      await sql.end();
    }
  });

  it('clients share server connections, and a session state one leaves is seen by the next (the hazard)', async () => {
    const first = client(database.url);
    const second = client(database.url);
    try {
      await first.unsafe('SET statement_timeout = 4321');
      await first`SELECT pg_advisory_lock(37)`;
      await first`CREATE TEMP TABLE left_behind (id integer)`;
      await first`LISTEN left_behind`;
      const seen = await sessionState(second);
      const [own] = await first<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
      // One server connection served both clients: what the first left, the second finds.
      expect(seen.pid).toBe(own?.pid);
      expect(seen).toMatchObject({
        settings: ['statement_timeout'],
        advisoryLocks: 1,
        temporaryObjects: 1,
        channels: 1,
      });
      await second.unsafe('DISCARD ALL');
      expect(await sessionState(first)).toMatchObject(clean);
    } finally {
      await Promise.all([first.end(), second.end()]);
    }
  });

  it("prepares the database (login roles, migrations) without leaving the migration's role or limits behind", async () => {
    const sql = createSql(database.url, 1);
    try {
      await prepareDatabase(
        sql,
        { user: 'platform_proxy_app', password: 'proxy-app-password' },
        { health: { user: 'platform_proxy_health', password: 'proxy-health-password' }, lockTimeoutMs: 5000 },
      );
    } finally {
      await sql.end();
    }
    const states = await everyServerState(database.url, name);
    for (const state of states) expect(state).toMatchObject({ ...clean, otherRole: false });
  });

  describe('the platform', () => {
    let platform: TestPlatform;
    let url: string;
    beforeAll(async () => {
      // A private database of its own through the pooler (startTestPlatform), with DATABASE_PROXY=true: the client
      // settings of the Lambdas behind RDS Proxy.
      platform = await startTestPlatform();
      url = platform.deps.config.databaseUrl as string;
    });
    afterAll(async () => {
      await platform?.stop();
    });

    it('runs its migrations and requests without leaving a setting, lock, temporary object or statement behind', async () => {
      expect(platform.deps.config.databaseProxy).toBe(true);
      const tenant = await createTenant(platform);
      const app = tenant.app.slug;
      await createTable(tenant.owner, app, 'items', {
        fields: [
          { name: 'title', type: 'string' },
          { name: 'category', type: 'string' },
          { name: 'price', type: 'integer' },
        ],
      });
      // Concurrent writes and reads: the platform's clients share the pooler's two server connections.
      await Promise.all(
        Array.from({ length: 12 }, (_, n) =>
          insert(tenant.owner, app, 'items', { title: `item ${n}`, category: `cat-${n % 3}`, price: n * 10 }),
        ),
      );
      const reads = await Promise.all([
        tenant.owner.get(`${dataPath(app, 'items')}?category=cat-1`),
        tenant.owner.get(`${dataPath(app, 'items')}?_group_by=category&_aggregate=count(*),sum(price)`),
        tenant.owner.get(`${dataPath(app, 'items')}?page_size=5`),
        tenant.owner.patch(`${dataPath(app, 'items')}?category=cat-2`, { price: 1 }),
      ]);
      expect(reads.map((response) => response.status)).toEqual([200, 200, 200, 200]);
      expect(reads[0]?.body.data).toHaveLength(4);
      expect((await tenant.owner.delete(tablePath(app, 'items'))).status).toBeLessThan(300);

      const states = await everyServerState(url, new URL(url).pathname.slice(1));
      // The settings are the role's defaults in this database (set by the start), not a session's SET.
      for (const state of states)
        expect(state).toMatchObject({ ...clean, otherRole: false, statementTimeout: '10s', timeZone: 'UTC' });
    });
  });
});
