import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SecretsManagerPassword } from './adapters/aws/database-password';
import { KmsKeys } from './adapters/aws/kms-keys';
import { KmsSigner } from './adapters/aws/kms-signer';
import { LocalKeySigner } from './adapters/local/key-signer';
import { LocalKeyring } from './adapters/local/keyring';
import type { TokenSigner } from './auth/signer';
import { TokenService } from './auth/tokens';
import { type Clock, systemClock } from './clock';
import type { Config } from './config';
import { noUserCreationEvents, type UserCreationEvents } from './events/user-creation';
import { type Keys, unconfiguredKeys } from './keys/keys';
import { createLogger, type Logger } from './log';
import { ValueCache } from './secrets/value-cache';
import { createSql, type Sql, type SqlEndpoint } from './sql/client';
import type { Store } from './store/store';
import { AccessCache } from './tenancy/access-cache';

/** Everything services need, built once per container (cold start) and passed explicitly. */
export interface Deps {
  readonly config: Config;
  readonly log: Logger;
  readonly clock: Clock;
  /** Control plane (DynamoDB). */
  readonly store: Store;
  /** Data plane (PostgreSQL); the connection opens on first use. */
  readonly sql: () => Sql;
  readonly tokens: TokenService;
  /** Who and where of recent requests (shared/tenancy/access-cache.ts). */
  readonly accessCache: AccessCache;
  /** PRE/POST_USER_CREATE around the one user-creation service (shared/events/user-creation.ts). */
  readonly events: UserCreationEvents;
  /** Data keys of the secret store's envelope encryption (shared/keys/keys.ts). */
  readonly keys: Keys;
  /** Decrypted secret values checked against their revision (shared/secrets/value-cache.ts). */
  readonly secretCache: ValueCache;
}

export type DepsOverrides = Partial<Pick<Deps, 'clock' | 'log' | 'events' | 'keys'>> & {
  signer?: TokenSigner;
};

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

function createSigner(config: Config): TokenSigner {
  if (config.jwtSigningKeyId)
    return new KmsSigner(new KMSClient({ region: config.region }), config.jwtSigningKeyId);
  return new LocalKeySigner(join(config.dataDir, 'keys', 'jwt-signing-key.pem'));
}

/** The secret store's keys: KMS in the cloud, a master key file under the data directory locally. */
function createKeys(config: Config): Keys {
  if (config.secretsKeyId) return new KmsKeys(new KMSClient({ region: config.region }), config.secretsKeyId);
  // Only the secrets function is given a key in the cloud; the others never ask for one.
  if (config.runtime === 'aws') return unconfiguredKeys;
  return new LocalKeyring(join(config.dataDir, 'keys', 'secrets-master.key'));
}

/** Where the data plane is: DATABASE_URL, or the cloud's proxy endpoint with the password from its secret. */
function sqlTarget(config: Config): string | SqlEndpoint {
  if (config.databaseUrl) return config.databaseUrl;
  const endpoint = config.databaseEndpoint;
  if (!endpoint)
    throw new Error('No database is configured: set DATABASE_URL, or DATABASE_HOST and DATABASE_SECRET_ARN');
  const { secretArn, ...rest } = endpoint;
  const secret = new SecretsManagerPassword(new SecretsManagerClient({ region: config.region }), secretArn);
  return { ...rest, password: () => secret.get() };
}

/** Builds the dependencies of the handlers from configuration, choosing each port's adapter once. */
export function buildDeps(config: Config, overrides: DepsOverrides = {}): Deps {
  const clock = overrides.clock ?? systemClock;
  const log = overrides.log ?? createLogger(config.logLevel);
  const signer = overrides.signer ?? createSigner(config);
  let sql: Sql | undefined;
  return {
    config,
    log,
    clock,
    store: createStore(config),
    accessCache: new AccessCache(config.accessCacheSeconds, clock),
    events: overrides.events ?? noUserCreationEvents,
    keys: overrides.keys ?? createKeys(config),
    secretCache: new ValueCache(clock),
    sql: () => {
      sql ??= createSql(sqlTarget(config), config.databasePoolSize, {
        prepare: config.databasePrepare,
        statementTimeoutMs: config.databaseStatementTimeoutMs,
      });
      return sql;
    },
    tokens: new TokenService(
      signer,
      {
        issuer: config.jwtIssuer,
        audience: config.jwtAudience,
        accessSeconds: config.accessTokenSeconds,
        refreshSeconds: config.refreshTokenSeconds,
      },
      clock,
    ),
  };
}
