import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { kmsClientOnFirstUse, lazyKmsKeys } from '../adapters/aws/lazy-kms';
import { LocalKeyring } from '../adapters/local/keyring';
import type { TokenSigner } from '../auth/signer';
import { TokenService } from '../auth/tokens';
import { systemClock } from '../clock';
import type { Config } from '../config';
import type { Deps } from '../deps';
import { type Keys, unconfiguredKeys } from '../keys/keys';
import { onFirstUse } from '../lazy';
import type { LifecycleDeps } from '../lifecycle/budget';
import { type DeletionHandOff, noHandOff } from '../lifecycle/hand-off';
import type { Logger } from '../log';
import { createLogger } from '../log';
import { ValueCache } from '../secrets/value-cache';
import type { Sql } from '../sql/client';
import type { Store } from '../store/store';
import { AccessCache } from '../tenancy/access-cache';
import { jwtKeys } from './jwt-keys';
import { createMailer } from './mailer';
import { createUserCreationEvents } from './user-creation-events';

/**
 * The composition of the dependencies, without the data plane's driver: whoever needs SQL passes its plane in
 * (sql-plane.ts). A group's Lambda that does not use SQL imports this module alone, so its bundle carries
 * neither the PostgreSQL driver nor the Secrets Manager client.
 */

function createStore(config: Config): Store {
  const local = config.runtime === 'local';
  const client = new DynamoDBClient({
    region: config.region,
    ...(config.dynamodbEndpoint ? { endpoint: config.dynamodbEndpoint } : {}),
    // The embedded DynamoDB accepts any credentials; a real endpoint uses the default provider chain.
    ...(local && config.dynamodbEndpoint?.startsWith('http://127.0.0.1')
      ? { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {}),
  });
  const doc = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
  return { doc, table: config.tableName };
}

/** The secret store's keys: KMS in the cloud, a master key file under the data directory locally. */
function createKeys(config: Config): Keys {
  if (config.secretsKeyId) return lazyKmsKeys(kmsClientOnFirstUse(config.region), config.secretsKeyId);
  // Only the secrets and auth functions are given a key in the cloud; the others never ask for one.
  if (config.runtime === 'aws') return unconfiguredKeys;
  return new LocalKeyring(join(config.dataDir, 'keys', 'secrets-master.key'));
}

export type DepsOverrides = Partial<Pick<Deps, 'clock' | 'log' | 'events' | 'keys' | 'mailer'>> & {
  signer?: TokenSigner;
};

/**
 * Who finishes a deletion that answered 202 (docs/lifecycle.md): the local server's background sweep, or an
 * asynchronous invocation of the cloud's deletion sweeper (its client loads on the first hand-off).
 */
function deletionHandOff(
  config: Config,
  parts: Omit<LifecycleDeps, 'config' | 'log'> & { log: Logger },
): DeletionHandOff {
  if (config.runtime === 'aws') {
    const name = config.deletions.sweeperFunction;
    if (!name) return noHandOff;
    const lambda = async () =>
      new (await import('@aws-sdk/client-lambda')).LambdaClient({ region: config.region });
    const adapter = onFirstUse(async () => {
      const { LambdaDeletionHandOff } = await import('../adapters/aws/lambda-deletion-hand-off');
      return new LambdaDeletionHandOff(lambda, name, parts.log);
    });
    return { handOff: async () => (await adapter()).handOff(), stop: async () => {} };
  }
  if (!config.deletions.inBackground) return noHandOff;
  // Loaded on the first hand-off: the cleanup's code is not every group's cold start.
  let started: Promise<DeletionHandOff> | undefined;
  return {
    handOff: async () => {
      started ??= import('../adapters/local/background-deletions').then(
        ({ BackgroundDeletions }) => new BackgroundDeletions({ ...parts, config }),
      );
      await (await started).handOff();
    },
    stop: async () => {
      await (await started)?.stop();
    },
  };
}

/** Stands in for the data plane where a group has none: reaching for it is a programming error. */
function noSqlPlane(): Sql {
  throw new Error('This function has no data plane: its group does not use SQL (shared/http/groups.ts)');
}

/** Builds the dependencies from configuration and the data plane, choosing each port's adapter once. */
export function composeDeps(
  config: Config,
  sql: (() => Sql) | undefined,
  overrides: DepsOverrides = {},
): Deps {
  const clock = overrides.clock ?? systemClock;
  const log = overrides.log ?? createLogger(config.logLevel);
  const keys = jwtKeys(config, overrides.signer);
  const store = createStore(config);
  const secretCache = new ValueCache(clock);
  const plane = sql ?? noSqlPlane;
  return {
    config,
    log,
    clock,
    store,
    accessCache: new AccessCache(config.accessCacheSeconds, clock),
    events: overrides.events ?? createUserCreationEvents(config, store, log),
    keys: overrides.keys ?? createKeys(config),
    secretCache,
    sql: plane,
    hasSql: sql !== undefined,
    deletions: deletionHandOff(config, {
      store,
      sql: plane,
      hasSql: sql !== undefined,
      clock,
      log,
      secretCache,
    }),
    mailer: overrides.mailer ?? createMailer(config, log, clock),
    tokens: new TokenService(
      keys.signer,
      {
        issuer: config.jwtIssuer,
        audience: config.jwtAudience,
        accessSeconds: config.accessTokenSeconds,
        refreshSeconds: config.refreshTokenSeconds,
      },
      clock,
      keys.verificationKeys,
    ),
  };
}
