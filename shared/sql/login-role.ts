import type { Sql } from './client';
import { migrate } from './migrations';

/** The login the functions use: no superuser, role or database creation; owns the schemas it creates. */
export interface LoginRole {
  readonly user: string;
  readonly password: string;
}

const identifier = (name: string) => `"${name.replaceAll('"', '""')}"`;
const literal = (value: string) => `'${value.replaceAll("'", "''")}'`;

/**
 * The deploy-time database step, run as the master user on a single connection: creates (or re-passwords) the
 * functions' login role, lets it connect and create schemas in this database, hands it the platform's schemas that
 * the master user owns (deployments from before this step), and applies the migrations as that role, so that every
 * object they create belongs to it. Returns the migration versions applied.
 */
export async function prepareDatabase(
  sql: Sql,
  login: LoginRole,
  { health, lockTimeoutMs }: { health?: LoginRole; lockTimeoutMs?: number } = {},
): Promise<number[]> {
  // A migration that waits for a lock held by live requests fails after this long (the deployment rolls back)
  // instead of queueing every later request behind its own lock request.
  if (lockTimeoutMs !== undefined)
    await sql.unsafe(`SET lock_timeout = ${Math.max(1, Math.trunc(lockTimeoutMs))}`);
  const role = identifier(login.user);
  await upsertRole(sql, login);
  const [{ database }] = (await sql`SELECT current_database() AS database`) as unknown as [
    { database: string },
  ];
  await sql.unsafe(`GRANT CONNECT, CREATE ON DATABASE ${identifier(database)} TO ${role}`);
  // The master user may act as the role (to create objects it owns); the role gains nothing from the master.
  await sql.unsafe(`GRANT ${role} TO CURRENT_USER`);
  await handOverSchemas(sql, role);
  await sql.unsafe(`SET ROLE ${role}`);
  try {
    const applied = await migrate(sql);
    if (health) await grantHealth(sql, health, database, role);
    return applied;
  } finally {
    await sql.unsafe('RESET ROLE');
  }
}

/** Creates the role, or gives it its current password; never a superuser, never creates roles or databases. */
async function upsertRole(sql: Sql, login: LoginRole): Promise<void> {
  const [found] = await sql`SELECT 1 FROM pg_roles WHERE rolname = ${login.user}`;
  const verb = found ? 'ALTER' : 'CREATE';
  // Utility statements take no parameters: the password is quoted as a literal, and never logged.
  await sql.unsafe(
    `${verb} ROLE ${identifier(login.user)} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD ${literal(login.password)}`,
  );
}

/**
 * The health check's login (`platform_health`): it may connect and read the applied migration version, nothing
 * else (no site schema, no CREATE). Run as the login role, which owns the migration table and so may grant on it;
 * the role itself is created by the master user.
 */
async function grantHealth(sql: Sql, health: LoginRole, database: string, owner: string): Promise<void> {
  const role = identifier(health.user);
  await sql.unsafe('RESET ROLE');
  await upsertRole(sql, health);
  await sql.unsafe(`REVOKE CREATE ON DATABASE ${identifier(database)} FROM ${role}`);
  await sql.unsafe(`GRANT CONNECT ON DATABASE ${identifier(database)} TO ${role}`);
  await sql.unsafe(`SET ROLE ${owner}`);
  await sql.unsafe(`GRANT USAGE ON SCHEMA platform TO ${role}`);
  await sql.unsafe(`GRANT SELECT ON platform.schema_migrations TO ${role}`);
}

/** Gives the login role the non-system schemas the master user owns, and their tables and sequences. */
async function handOverSchemas(sql: Sql, role: string): Promise<void> {
  const schemas = await sql<{ name: string }[]>`
    SELECT nspname AS name FROM pg_namespace
    WHERE nspowner = (SELECT oid FROM pg_roles WHERE rolname = current_user)
      AND nspname NOT IN ('public', 'information_schema') AND nspname NOT LIKE 'pg\\_%'`;
  for (const { name } of schemas) {
    await sql.unsafe(`ALTER SCHEMA ${identifier(name)} OWNER TO ${role}`);
    const relations = await sql<{ name: string; kind: string }[]>`
      SELECT c.relname AS name, c.relkind AS kind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = ${name} AND c.relkind IN ('r', 'p', 'v', 'm', 'S')
        AND c.relowner = (SELECT oid FROM pg_roles WHERE rolname = current_user)`;
    for (const relation of relations) {
      const kind = relation.kind === 'S' ? 'SEQUENCE' : relation.kind === 'v' ? 'VIEW' : 'TABLE';
      await sql.unsafe(`ALTER ${kind} ${identifier(name)}.${identifier(relation.name)} OWNER TO ${role}`);
    }
  }
}
