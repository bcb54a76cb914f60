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
export async function prepareDatabase(sql: Sql, login: LoginRole): Promise<number[]> {
  const role = identifier(login.user);
  const [found] = await sql`SELECT 1 FROM pg_roles WHERE rolname = ${login.user}`;
  const verb = found ? 'ALTER' : 'CREATE';
  // Utility statements take no parameters: the password is quoted as a literal, and never logged.
  await sql.unsafe(
    `${verb} ROLE ${role} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD ${literal(login.password)}`,
  );
  const [{ database }] = (await sql`SELECT current_database() AS database`) as unknown as [
    { database: string },
  ];
  await sql.unsafe(`GRANT CONNECT, CREATE ON DATABASE ${identifier(database)} TO ${role}`);
  // The master user may act as the role (to create objects it owns); the role gains nothing from the master.
  await sql.unsafe(`GRANT ${role} TO CURRENT_USER`);
  await handOverSchemas(sql, role);
  await sql.unsafe(`SET ROLE ${role}`);
  try {
    return await migrate(sql);
  } finally {
    await sql.unsafe('RESET ROLE');
  }
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
