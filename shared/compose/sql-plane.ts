import type { Config } from '../config';
import { onFirstUse } from '../lazy';
import { createSql, type Sql, type SqlEndpoint } from '../sql/client';

/** Where the data plane is: DATABASE_URL, or the cloud's proxy endpoint with the password from its secret. */
export function sqlTarget(config: Config): string | SqlEndpoint {
  if (config.databaseUrl) return config.databaseUrl;
  const endpoint = config.databaseEndpoint;
  if (!endpoint)
    throw new Error('No database is configured: set DATABASE_URL, or DATABASE_HOST and DATABASE_SECRET_ARN');
  const { secretArn, ...rest } = endpoint;
  // The Secrets Manager client loads when the first connection opens, not at cold start.
  const secret = onFirstUse(async () => {
    const [{ SecretsManagerClient }, { SecretsManagerPassword }] = await Promise.all([
      import('@aws-sdk/client-secrets-manager'),
      import('../adapters/aws/database-password'),
    ]);
    return new SecretsManagerPassword(new SecretsManagerClient({ region: config.region }), secretArn);
  });
  return {
    ...rest,
    password: async () => {
      const credentials = await (await secret()).credentials();
      // The login rotates with single-user rotation, so the secret keeps naming the configured user; a secret
      // naming another (an alternating-users rotation's clone) would be refused by the proxy: say so plainly.
      if (credentials.username !== undefined && credentials.username !== rest.user)
        throw new Error(
          `The database secret names user "${credentials.username}", but DATABASE_USER is "${rest.user}": the login must rotate with single-user rotation`,
        );
      return credentials.password;
    },
    refresh: async () => (await secret()).refresh(),
  };
}

/**
 * The data plane (PostgreSQL) of a process: the connection pool opens on first use. Only the groups that use SQL
 * compose it, so that the driver and the Secrets Manager client stay out of the other groups' bundles.
 */
export function sqlPlane(config: Config): () => Sql {
  let sql: Sql | undefined;
  return () => {
    sql ??= createSql(sqlTarget(config), config.databasePoolSize, {
      prepare: config.databasePrepare && !config.databaseProxy,
    });
    return sql;
  };
}
