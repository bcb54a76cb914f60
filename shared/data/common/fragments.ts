import type postgres from 'postgres';

/** The client or a transaction: both run tagged queries and build identifier helpers. */
export type Queryable = postgres.ISql;

export type Fragment = postgres.Fragment;

/** One row of values for the driver's insert helper. */
export type Values = Record<string, postgres.ParameterOrJSON<never>>;

/** Fragments joined by a separator (postgres.js joins fragment arrays with spaces only). */
export function join(
  sql: Queryable,
  fragments: readonly Fragment[],
  separator: ', ' | ' AND ' = ', ',
): Fragment {
  const sep = separator === ', ' ? sql`, ` : sql` AND `;
  const parts: Fragment[] = [];
  fragments.forEach((fragment, index) => {
    if (index > 0) parts.push(sep);
    parts.push(fragment);
  });
  return sql`${parts}`;
}

/** A comma-separated list of quoted identifiers. */
export function identifiers(sql: Queryable, names: readonly string[]): Fragment {
  return join(
    sql,
    names.map((name) => sql`${sql(name)}`),
  );
}

/** A schema-qualified table, both names quoted by the driver. */
export function qualified(sql: Queryable, schema: string, table: string): Fragment {
  return sql`${sql(schema)}.${sql(table)}`;
}

/** The SQLSTATE of a PostgreSQL error, if it is one. */
export function sqlState(error: unknown): string | undefined {
  if ((error as { name?: unknown } | null)?.name !== 'PostgresError') return undefined;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** The structured fields PostgreSQL sends with an error (never its message text). */
export interface PgErrorFields {
  code: string;
  constraint_name?: string;
  table_name?: string;
  column_name?: string;
  schema_name?: string;
}

export function pgErrorFields(error: unknown): PgErrorFields | undefined {
  const code = sqlState(error);
  if (!code) return undefined;
  const e = error as Record<string, unknown>;
  const text = (key: string) => (typeof e[key] === 'string' ? (e[key] as string) : undefined);
  const fields: PgErrorFields = { code };
  const constraint = text('constraint_name');
  const table = text('table_name');
  const column = text('column_name');
  const schema = text('schema_name');
  if (constraint) fields.constraint_name = constraint;
  if (table) fields.table_name = table;
  if (column) fields.column_name = column;
  if (schema) fields.schema_name = schema;
  return fields;
}
