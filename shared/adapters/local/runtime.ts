import type { Server } from 'node:http';
import { join } from 'node:path';
import { ensureBootstrapAdmin } from '../../accounts/bootstrap';
import type { User } from '../../accounts/model';
import type { Config } from '../../config';
import { buildDeps, type Deps, type DepsOverrides } from '../../deps';
import type { OperationsByGroup } from '../../http/context';
import { migrate } from '../../sql/migrations';
import { ensureTable } from '../../store/ensure-table';
import { createLocalApp, type Dispatch } from './app';
import { type EmbeddedService, startEmbeddedDynamoDb } from './embedded-dynamodb';
import { startEmbeddedPostgres } from './embedded-postgres';
import { createHttpServer, listen } from './http-server';

export interface LocalPlatform {
  readonly deps: Deps;
  readonly dispatch: Dispatch;
  readonly baseUrl: string;
  /** Set when this start created the bootstrap superuser. */
  readonly admin: { user: User; password: string; generated: boolean } | undefined;
  stop(): Promise<void>;
}

export interface LocalOptions {
  /** Keep the embedded stores' data under `config.dataDir` (default) or in memory. */
  persist?: boolean;
  overrides?: DepsOverrides;
  /** Start the embedded PGlite from this data-directory dump instead of running initdb. */
  postgresTemplate?: Blob;
}

/**
 * Starts the platform on a laptop: the embedded DynamoDB and PGlite unless endpoints are configured, the table,
 * the SQL migrations, the bootstrap superuser, and the HTTP server in front of the same handlers as the cloud.
 */
export async function startLocalPlatform(
  base: Config,
  operations: OperationsByGroup,
  options: LocalOptions = {},
): Promise<LocalPlatform> {
  const persist = options.persist ?? true;
  const services: EmbeddedService[] = [];
  let config = base;
  try {
    if (!config.dynamodbEndpoint) {
      const dynamo = await startEmbeddedDynamoDb(
        persist ? { file: join(config.dataDir, 'dynamodb.sqlite') } : {},
      );
      services.push(dynamo);
      config = { ...config, dynamodbEndpoint: dynamo.url };
    }
    if (!config.databaseUrl) {
      const postgres = await startEmbeddedPostgres(
        persist ? { dataDir: join(config.dataDir, 'pglite') } : {},
      );
      services.push(postgres);
      config = { ...config, databaseUrl: postgres.url, databasePoolSize: 1 };
    }
    const deps = buildDeps(config, options.overrides);
    await ensureTable(deps.store);
    await migrate(deps.sql());
    const admin = await ensureBootstrapAdmin(deps, {
      email: config.adminEmail,
      password: config.adminPassword,
    });
    const dispatch = createLocalApp(deps, operations);
    const server: Server = createHttpServer(dispatch, { corsOrigins: config.corsOrigins });
    const baseUrl = await listen(server, config.port, config.host);
    return {
      deps,
      dispatch,
      baseUrl,
      admin,
      stop: async () => {
        await new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await deps.sql().end({ timeout: 5 });
        for (const service of services.reverse()) await service.stop();
      },
    };
  } catch (error) {
    for (const service of services.reverse()) await service.stop().catch(() => {});
    throw error;
  }
}
