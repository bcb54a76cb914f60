import type { Sql } from './client';

/**
 * The settings every data-plane session runs with: UTC with ISO dates (the text shared/api/datetimes.ts reads), a
 * statement timeout, so that no statement (a costly regular expression in a CHECK, say) holds a connection for
 * long, and the application's name in pg_stat_activity. They are the defaults of the roles that connect, in the
 * platform's database (`ALTER ROLE … IN DATABASE … SET`), not parameters of the startup message: RDS Proxy refuses
 * `statement_timeout` there, PgBouncer refuses every parameter it does not track, and where one is accepted it is
 * session state that pins (docs/deploying.md, "What pins an RDS Proxy session"). A role's defaults apply to the
 * sessions that start after they are set.
 */
export type SessionDefaults = Readonly<
  Record<'statement_timeout' | 'TimeZone' | 'DateStyle' | 'application_name', string>
>;

/** Statements PostgreSQL cancels after this long (ms) unless configured otherwise: within API Gateway's 30 s. */
export const defaultStatementTimeoutMs = 10_000;

export function sessionDefaults(statementTimeoutMs = defaultStatementTimeoutMs): SessionDefaults {
  return {
    statement_timeout: String(Math.max(0, Math.trunc(statementTimeoutMs))),
    TimeZone: 'UTC',
    DateStyle: 'ISO, MDY',
    application_name: 'platform',
  };
}

const identifier = (name: string) => `"${name.replaceAll('"', '""')}"`;
const literal = (value: string) => `'${value.replaceAll("'", "''")}'`;

/**
 * Makes `defaults` the session defaults of `role` in the current database; returns whether any changed. Run inside
 * a transaction by the deploy-time step (for the app, health and migration roles) and by the local start (for the
 * role it connects as). Sets only what differs, so a run with the same values changes nothing.
 */
export async function setRoleDefaults(sql: Sql, role: string, defaults: SessionDefaults): Promise<boolean> {
  const rows = await sql<{ entry: string }[]>`SELECT unnest(setconfig) AS entry FROM pg_db_role_setting
    WHERE setrole = (SELECT oid FROM pg_roles WHERE rolname = ${role})
      AND setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database())`;
  const [{ database }] = (await sql`SELECT current_database() AS database`) as unknown as [
    { database: string },
  ];
  const current = new Map(
    rows.map(({ entry }) => [
      entry.slice(0, entry.indexOf('=')).toLowerCase(),
      entry.slice(entry.indexOf('=') + 1),
    ]),
  );
  let changed = false;
  for (const [name, value] of Object.entries(defaults)) {
    if (current.get(name.toLowerCase()) === value) continue;
    // Utility statements take no parameters: the names are this module's, the values quoted as literals.
    await sql.unsafe(
      `ALTER ROLE ${identifier(role)} IN DATABASE ${identifier(database)} SET ${name} = ${literal(value)}`,
    );
    changed = true;
  }
  return changed;
}

/**
 * The local start's step on DATABASE_URL (never on the embedded PGlite, which has one session and reads no role
 * defaults): gives the role it connects as `defaults` in this database, on a client of its own that it then closes.
 * When a default changed, the session ends itself on the server (`pg_terminate_backend`), so that a pooler in front
 * (DATABASE_PROXY=true) does not hand the session, started with the old defaults, to the platform's clients.
 */
export async function setOwnRoleDefaults(sql: Sql, defaults: SessionDefaults): Promise<boolean> {
  const changed = await sql.begin(async (tx) => {
    const [{ role }] = (await tx`SELECT current_user AS role`) as unknown as [{ role: string }];
    return setRoleDefaults(tx as unknown as Sql, role, defaults);
  });
  if (changed) {
    await sql`SELECT pg_terminate_backend(pg_backend_pid())`.catch((error: { code?: string }) => {
      // 57P01: terminating connection due to administrator command; or the connection closed under the query.
      if (error.code !== '57P01' && !String(error.code ?? '').startsWith('CONNECTION_')) throw error;
    });
  }
  return changed;
}
