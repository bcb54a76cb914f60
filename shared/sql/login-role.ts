import type { Sql } from './client';
import { inMigrationTransaction, migrate, migrations } from './migrations';
import { sessionDefaults, setRoleDefaults } from './session-defaults';

/** The login the functions use: no superuser, role or database creation; owns the schemas it creates. */
export interface LoginRole {
  readonly user: string;
  readonly password: string;
}

const identifier = (name: string) => `"${name.replaceAll('"', '""')}"`;
const literal = (value: string) => `'${value.replaceAll("'", "''")}'`;

/**
 * The deploy-time database step, run as the master user: creates (or re-passwords) the functions' login role, lets
 * it connect and create schemas in this database, hands it the platform's schemas that the master user owns
 * (deployments from before this step), gives the login, health and master roles the sessions' settings as their
 * defaults in this database (shared/sql/session-defaults.ts: nothing goes in a startup message), and applies the
 * migrations as the login role, so that every object they create belongs to it. Each step is a transaction whose
 * role and limits are `SET LOCAL` (shared/sql/migrations.ts, `inMigrationTransaction`): nothing is left in the
 * session, so it runs the same through RDS Proxy without pinning, or through PgBouncer in transaction mode. Returns
 * the migration versions applied.
 */
export async function prepareDatabase(
  sql: Sql,
  login: LoginRole,
  {
    health,
    lockTimeoutMs,
    statementTimeoutMs,
  }: { health?: LoginRole; lockTimeoutMs?: number; statementTimeoutMs?: number } = {},
): Promise<number[]> {
  const role = identifier(login.user);
  const defaults = sessionDefaults(statementTimeoutMs);
  await inMigrationTransaction(sql, { lockTimeoutMs }, async (tx) => {
    await upsertRole(tx, login);
    const [{ database }] = (await tx`SELECT current_database() AS database`) as unknown as [
      { database: string },
    ];
    await tx.unsafe(`GRANT CONNECT, CREATE ON DATABASE ${identifier(database)} TO ${role}`);
    // The master user may act as the role (to create objects it owns); the role gains nothing from the master.
    await tx.unsafe(`GRANT ${role} TO CURRENT_USER`);
    await handOverSchemas(tx, role);
    await setRoleDefaults(tx, login.user, defaults);
    if (health) {
      await upsertRole(tx, health);
      await tx.unsafe(`REVOKE CREATE ON DATABASE ${identifier(database)} FROM ${identifier(health.user)}`);
      await tx.unsafe(`GRANT CONNECT ON DATABASE ${identifier(database)} TO ${identifier(health.user)}`);
      await setRoleDefaults(tx, health.user, defaults);
    }
    // The master's own sessions from the next deployment on; this one's limits are its transactions' SET LOCAL.
    const [{ me }] = (await tx`SELECT current_user AS me`) as unknown as [{ me: string }];
    await setRoleDefaults(tx, me, defaults);
  });
  const applied = await migrate(sql, migrations, { role: login.user, lockTimeoutMs });
  if (health) {
    // As the login role, which owns the migration table and so may grant on it.
    await inMigrationTransaction(sql, { lockTimeoutMs, role: login.user }, async (tx) => {
      await tx.unsafe(`GRANT USAGE ON SCHEMA platform TO ${identifier(health.user)}`);
      await tx.unsafe(`GRANT SELECT ON platform.schema_migrations TO ${identifier(health.user)}`);
    });
  }
  return applied;
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

/** Gives the login role the non-system schemas the master user owns, and their tables, sequences and functions. */
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
        AND c.relowner = (SELECT oid FROM pg_roles WHERE rolname = current_user)
        -- A sequence a column owns (serial, identity) moves with its table and cannot be moved alone.
        AND NOT (c.relkind = 'S' AND EXISTS (
          SELECT 1 FROM pg_depend d
          WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype IN ('a', 'i')))`;
    for (const relation of relations) {
      const kind = relation.kind === 'S' ? 'SEQUENCE' : relation.kind === 'v' ? 'VIEW' : 'TABLE';
      await sql.unsafe(`ALTER ${kind} ${identifier(name)}.${identifier(relation.name)} OWNER TO ${role}`);
    }
    // Functions too, so that a later migration run by the login role can replace them.
    const functions = await sql<{ signature: string }[]>`
      SELECT p.oid::regprocedure::text AS signature FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname = ${name} AND p.proowner = (SELECT oid FROM pg_roles WHERE rolname = current_user)`;
    for (const { signature } of functions) await sql.unsafe(`ALTER ROUTINE ${signature} OWNER TO ${role}`);
  }
}
