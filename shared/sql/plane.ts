import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SecretsManagerPassword } from '../adapters/aws/database-password';
import type { Config } from '../config';
import { createSql, type Sql, type SqlEndpoint } from './client';

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

/**
 * The data plane (PostgreSQL) of a process: the connection pool opens on first use. Only the groups that use SQL
 * compose it, so that the driver and the Secrets Manager client stay out of the other groups' bundles.
 */
export function sqlPlane(config: Config): () => Sql {
  let sql: Sql | undefined;
  return () => {
    sql ??= createSql(sqlTarget(config), config.databasePoolSize, {
      prepare: config.databasePrepare,
      statementTimeoutMs: config.databaseStatementTimeoutMs,
    });
    return sql;
  };
}
