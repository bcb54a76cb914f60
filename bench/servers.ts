import { join } from 'node:path';
import { serverProcess } from '../bin/server-process';
import { buildServers } from './build';
import type { BenchConfig } from './config';
import { freePort, type Server, startServer } from './processes';
import type { Fixture } from './setup';

/** The two servers every bench measures, the project and the floor, started as child processes. */

let built: ReturnType<typeof buildServers> | undefined;
/** Both servers are bundled once, on first use, and run with plain node (bench/build.ts). */
function builtServers(): ReturnType<typeof buildServers> {
  built ??= buildServers();
  return built;
}

/** Where the project keeps its files (SE1's floor reads its master key) and the DynamoDB both servers read. */
export interface Shared {
  dataDir: string;
  dynamodbEndpoint: string;
}

/** Starts the bundled project server (`bin/local.ts`) on the bench's PostgreSQL and DynamoDB. */
export async function startProject(
  databaseUrl: string,
  config: BenchConfig,
  password: string,
  shared: Shared,
): Promise<Server> {
  const servers = await builtServers();
  const { dataDir } = shared;
  const port = await freePort();
  // Started as `npm start` starts it: the node flags and environment of package.json's `config` (bin/server-process.ts).
  const start = serverProcess();
  const env = {
    ...process.env,
    ...start.env,
    DATABASE_URL: databaseUrl,
    DATABASE_POOL_SIZE: String(config.poolSize),
    DATA_DIR: dataDir,
    DYNAMODB_ENDPOINT: shared.dynamodbEndpoint,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    // L1K and G1K measure what a key costs, not its throttle (checked all the same): no 429 at the bench's rate.
    API_KEY_REQUESTS_PER_SECOND: '1000000000',
    ADMIN_PASSWORD: password,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  // BENCH_PROFILE=1 writes a V8 CPU profile of the project server to bench/results/ when it stops.
  const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', '--cpu-prof-dir=bench/results'] : [];
  // BENCH_PROJECT_NODE_OPTIONS: extra node flags for the project server (heap experiments); later, so they win.
  profile.push(...(process.env.BENCH_PROJECT_NODE_OPTIONS?.split(' ').filter(Boolean) ?? []));
  return startServer(
    'project',
    [...start.nodeFlags, ...profile, servers.project],
    env,
    /Tenantbase listening on/,
    `http://127.0.0.1:${port}`,
  );
}

/** Starts the bundled floor server on the fixture's physical tables. */
export async function startFloor(
  databaseUrl: string,
  config: BenchConfig,
  fixture: Fixture,
  shared: Shared,
): Promise<Server> {
  const servers = await builtServers();
  const port = await freePort();
  // Started as `npm start` starts it: the node flags and environment of package.json's `config` (bin/server-process.ts).
  const start = serverProcess();
  const env = {
    ...process.env,
    ...start.env,
    DATABASE_URL: databaseUrl,
    DATABASE_POOL_SIZE: String(config.poolSize),
    PORT: String(port),
    HOST: '127.0.0.1',
    FLOOR_SCHEMA: fixture.schema,
    FLOOR_TABLE: fixture.physical,
    FLOOR_MAKERS_TABLE: fixture.makersPhysical,
    FLOOR_PASSWORD: fixture.adminPassword,
    FLOOR_DYNAMODB_ENDPOINT: shared.dynamodbEndpoint,
    FLOOR_TABLE_NAME: 'platform',
    FLOOR_KEYRING: join(shared.dataDir, 'keys', 'secrets-master.key'),
    ...(fixture.graph
      ? { FLOOR_GRAPH_TABLE: fixture.graph.physical, FLOOR_GRAPH_EDGES: fixture.graph.edgesPhysical }
      : {}),
  };
  return startServer('floor', [servers.floor], env, /Floor listening on/, `http://127.0.0.1:${port}`);
}
