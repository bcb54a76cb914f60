import { existsSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { ensureBootstrapAdmin } from '../../accounts/bootstrap';
import type { User } from '../../accounts/model';
import { buildDeps } from '../../compose/build-deps';
import type { DepsOverrides } from '../../compose/compose';
import type { Config } from '../../config';
import { onCommittedEvents } from '../../data/records/outbox';
import type { Deps } from '../../deps';
import type { GroupRegistry } from '../../http/context';
import { finishPendingDeletions } from '../../lifecycle/runner';
import { createSql } from '../../sql/client';
import { migrate } from '../../sql/migrations';
import { sessionDefaults, setOwnRoleDefaults } from '../../sql/session-defaults';
import { ensureTable } from '../../store/ensure-table';
import { startDispatcher } from '../../webhooks/dispatcher';
import { createLocalApp, type Dispatch } from './app';
import { lockDataDir } from './data-dir-lock';
import { type EmbeddedService, startEmbeddedDynamoDb } from './embedded-dynamodb';
import { assertPortFree, createHttpServer, drainHttpServer, listen } from './http-server';
import { quietProgress, type StartProgress } from './progress';

export interface LocalPlatform {
  readonly deps: Deps;
  readonly dispatch: Dispatch;
  readonly baseUrl: string;
  /** The process id of the embedded PostgreSQL when it runs in a child process (for measurements). */
  readonly postgresPid: number | undefined;
  /** Set when this start created the bootstrap superuser. */
  readonly admin: { user: User; password: string; generated: boolean } | undefined;
  /**
   * Stops taking requests at once, lets those in flight finish for up to SHUTDOWN_DEADLINE_SECONDS (then cuts their
   * connections, reported to `onCut`), then ends the background deletion sweep after its pass under way, closes the
   * SQL pool and the embedded stores and releases the data directory.
   */
  stop(options?: StopOptions): Promise<void>;
}

export interface StopOptions {
  /** Called when connections were still open at the deadline and were cut. */
  onCut?: (connections: number, deadlineSeconds: number) => void;
}

export interface LocalOptions {
  /**
   * Keep the embedded stores' data under `config.dataDir` (default) or in memory. A persisting platform holds an
   * exclusive lock on the directory while it runs.
   */
  persist?: boolean;
  overrides?: DepsOverrides;
  /**
   * Start the embedded PGlite from this data-directory dump instead of running initdb: a Blob, or the path of the
   * file (the only form a child process takes).
   */
  postgresTemplate?: Blob | string;
  /**
   * Where the embedded PGlite runs: `'child'` (default, `npm start`) in a child process of its own, which stops with
   * this one, so its WebAssembly heap is not this process's memory and its statements never hold this event loop;
   * `'in-process'` in this process, as the tests do (test/support/platform.ts): a test file's platform lives
   * seconds, and a child process would cost it a second Node.js start and the template copied through a file.
   */
  postgresProcess?: 'child' | 'in-process';
  /**
   * `false` starts no PostgreSQL and applies no migrations, and `deps.sql()` throws ("No database is
   * configured"): for the tests of groups that never reach the data plane, which then cost no PGlite start.
   */
  dataPlane?: boolean;
  /** Reports the slow steps of the start (silent by default). */
  progress?: StartProgress;
}

/** A fresh PGlite directory means initdb: the slow part of a first start. */
function hasPostgresData(dir: string): boolean {
  return existsSync(join(dir, 'PG_VERSION'));
}

/** The embedded stores this configuration needs, started; the configuration pointed at them. */
async function startStores(
  base: Config,
  options: LocalOptions,
  progress: StartProgress,
  services: EmbeddedService[],
): Promise<{ config: Config; postgresPid: number | undefined }> {
  const persist = options.persist ?? true;
  let config = base;
  if (!config.dynamodbEndpoint) {
    const dynamo = await progress.step('starting embedded DynamoDB', () =>
      startEmbeddedDynamoDb(persist ? { file: join(config.dataDir, 'dynamodb.sqlite') } : {}),
    );
    services.push(dynamo);
    config = { ...config, dynamodbEndpoint: dynamo.url };
  }
  if (options.dataPlane === false)
    return {
      config: { ...config, databaseUrl: undefined, databaseEndpoint: undefined },
      postgresPid: undefined,
    };
  let postgresPid: number | undefined;
  if (!config.databaseUrl) {
    const dataDir = persist ? join(config.dataDir, 'pglite') : undefined;
    const fresh = !dataDir || !hasPostgresData(dataDir);
    // Loaded only when needed: PGlite is large, and a server given DATABASE_URL never uses it.
    const { startEmbeddedPostgres, startEmbeddedPostgresChild } = await import('./embedded-postgres');
    const postgresOptions = {
      ...(dataDir ? { dataDir } : {}),
      ...(options.postgresTemplate && fresh ? { loadDataDir: options.postgresTemplate } : {}),
    };
    const inProcess = options.postgresProcess === 'in-process';
    const postgres = await progress.step<EmbeddedService & { pid?: number }>(
      `${fresh ? 'initialising' : 'opening'} embedded PostgreSQL`,
      () =>
        inProcess ? startEmbeddedPostgres(postgresOptions) : startEmbeddedPostgresChild(postgresOptions),
    );
    services.push(postgres);
    postgresPid = postgres.pid;
    config = { ...config, databaseUrl: postgres.url, databasePoolSize: 1 };
  }
  return { config, postgresPid };
}

/** The start's step on DATABASE_URL: its own one-connection client, closed after (shared/sql/session-defaults.ts). */
async function setDatabaseRoleDefaults(url: string, statementTimeoutMs: number): Promise<void> {
  const sql = createSql(url, 1);
  let ended = false;
  try {
    // A session that ended itself on the server has nothing left to wait for: closing it at once (a grace period
    // would wait it out in full, seconds per start).
    ended = await setOwnRoleDefaults(sql, sessionDefaults(statementTimeoutMs));
  } finally {
    await sql.end({ timeout: ended ? 0 : 5 });
  }
}

/**
 * Starts the platform on a laptop: the embedded DynamoDB and PGlite unless endpoints are configured, the table,
 * the SQL migrations, the bootstrap superuser, and the HTTP server in front of the same handlers as the cloud.
 * Fails with a `LocalStartError` when the data directory or the port is taken.
 */
/** The local webhook dispatcher, woken by this process's commits that wrote record events. */
function startLocalDispatcher(deps: Deps): { stop: () => Promise<void> } {
  const dispatcher = startDispatcher({
    sql: deps.sql(),
    keys: deps.keys,
    config: deps.config,
    log: deps.log.child({ component: 'webhooks' }),
  });
  const unsubscribe = onCommittedEvents(() => dispatcher.wake());
  return {
    stop: async () => {
      unsubscribe();
      await dispatcher.stop();
    },
  };
}

export async function startLocalPlatform(
  base: Config,
  groups: GroupRegistry,
  options: LocalOptions = {},
): Promise<LocalPlatform> {
  const progress = options.progress ?? quietProgress;
  const lock = (options.persist ?? true) ? lockDataDir(base.dataDir) : undefined;
  const services: EmbeddedService[] = [];
  let deps: Deps | undefined;
  let webhooks: { stop: () => Promise<void> } | undefined;
  const closeStores = async () => {
    // The background deletion sweep first: it ends between two passes, and the stores close under no cleanup.
    await deps?.deletions.stop();
    // The webhook dispatcher ends after its round under way (a delivery cut short is leased, and sent again).
    await webhooks?.stop();
    if (options.dataPlane !== false) await deps?.sql().end({ timeout: 5 });
    for (const service of services.reverse()) await service.stop();
    lock?.release();
  };
  try {
    // Before the slow steps: a taken port should not cost a PGlite start to find out.
    if (base.port !== 0) await assertPortFree(base.port, base.host);
    const { config, postgresPid } = await startStores(base, options, progress, services);
    deps = buildDeps(config, options.overrides);
    const ready = deps;
    await progress.step('preparing the control-plane table', () => ensureTable(ready.store));
    // On DATABASE_URL, the role the platform connects as gets the sessions' settings as its defaults in the database
    // before the pool opens: nothing goes in the startup message (PGlite reads no role defaults and is UTC already).
    if (options.dataPlane !== false && base.databaseUrl)
      await progress.step("setting the database role's session defaults", () =>
        setDatabaseRoleDefaults(base.databaseUrl as string, config.databaseStatementTimeoutMs),
      );
    if (options.dataPlane !== false)
      await progress.step('applying the SQL migrations', () => migrate(ready.sql()));
    const admin = await progress.step('checking the first superuser', () =>
      ensureBootstrapAdmin(ready, { email: config.adminEmail, password: config.adminPassword }),
    );
    // Deletions a crash or a bounded request left half done: a start finishes them all (docs/lifecycle.md).
    const owed = await progress.step('finishing pending deletions', () =>
      finishPendingDeletions(ready, '', { left: Number.POSITIVE_INFINITY }),
    );
    if (owed > 0) ready.log.warn('deletions left for the next start', { pending: owed });
    // Record events' deliveries run in the server (docs/events.md): woken after each commit that wrote events.
    if (options.dataPlane !== false) webhooks = startLocalDispatcher(ready);
    const dispatch = createLocalApp(ready, groups);
    const server: Server = createHttpServer(dispatch, {
      corsOrigins: config.corsOrigins,
      timeouts: config.requestTimeouts,
    });
    const baseUrl = await listen(server, config.port, config.host);
    return {
      deps: ready,
      dispatch,
      baseUrl,
      postgresPid,
      admin,
      stop: async (stopOptions = {}) => {
        const deadline = config.shutdownDeadlineSeconds;
        const { cut } = await drainHttpServer(server, deadline * 1000);
        if (cut > 0) stopOptions.onCut?.(cut, deadline);
        await closeStores();
      },
    };
  } catch (error) {
    await closeStores().catch(() => {});
    throw error;
  }
}
