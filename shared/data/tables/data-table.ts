import type { App } from '../../accounts/model';
import { ConflictError } from '../../errors';
import type { Logger } from '../../log';
import { typeRule } from '../common/field-types';
import { type Fragment, type Queryable, sqlState } from '../common/fragments';
import type { CatalogEntry, FieldDef, TableSchema } from '../common/model';
import { systemFields } from '../common/model';
import { loadPatternEngineFor } from '../schema/patterns';
import { uniqueSets } from '../schema/unique-sets';
import { compileRecordValidators, isReadOnly, type RecordValidators } from '../schema/validator';
import { findTable } from './catalog';
import { mapSqlError, tableNotFound } from './errors';
import type { Owner } from './identity';

/** Where a request's tables live: the site's schema and the app. Built from the request's resolved site only. */
export interface TableScope {
  /** The site's PostgreSQL schema (schema/names.ts `siteSchemaName`). */
  schema: string;
  site: string;
  /** The site's `created_at` in the control plane: its identity (shared/data/tables/identity.ts). */
  siteIdentity: string;
  app: App;
  /** Where a refusal that only an operator can settle is logged (the stores disagree). */
  log?: Logger | undefined;
  /** Who writes: named in the record events of the writes (shared/data/records/outbox.ts). */
  actor?: RecordActor | undefined;
}

/** Who made a change: the signed-in user, or an API key (by its id, with the user who created it). */
export type RecordActor =
  | { readonly type: 'user'; readonly id: number; readonly username: string }
  | {
      readonly type: 'api_key';
      readonly id: string;
      readonly created_by: { readonly id: number; readonly username: string };
    };

/** Whose tables a scope reads and writes: the app's id and the site's and app's identities. */
export function ownerOf(scope: TableScope): Owner {
  return {
    appId: scope.app.id,
    app: scope.app.created_at,
    site: scope.siteIdentity,
    siteSlug: scope.site,
    log: scope.log,
  };
}

/** A data table ready for record operations: its catalog entry plus what is derived from it once per version. */
export interface DataTable {
  schema: string;
  entry: CatalogEntry;
  definition: TableSchema;
  name: string;
  physical: string;
  key: FieldDef;
  fields: ReadonlyMap<string, FieldDef>;
  /** Fields shown in records (all but the search vector). */
  visible: readonly FieldDef[];
  softDelete: boolean;
  hasCreatedAt: boolean;
  hasUpdatedAt: boolean;
  uniqueSets: readonly string[][];
  validators: RecordValidators;
}

const cacheLimit = 256;
/**
 * Compiled tables by (schema, table id, version), each with the `updated_at` of the catalog row it was compiled
 * from. The version alone does not name a definition: PostgreSQL restored to an earlier moment takes a table back
 * to an earlier version, and a later change reaches the lost version's number again with another definition. The
 * catalog sets `updated_at` to the changing transaction's time (microseconds) with every change of the row's
 * definition, layout or description (`updateTable`, the only writer of those; a new table has a new random id), so
 * (id, version, updated_at) names one content: a hit whose `updated_at` differs is compiled again and replaces it.
 * The hit path stays one Map lookup and one string comparison.
 */
const cache = new Map<string, DataTable>();

/** Compiles a catalog entry, once per (site, table, version, updated_at) per container. */
export function compileTable(schema: string, entry: CatalogEntry): DataTable {
  const cacheKey = `${schema}/${entry.id}/${entry.version}`;
  const cached = cache.get(cacheKey);
  if (cached && cached.entry.updated_at === entry.updated_at) {
    // Refresh the entry (the identities a first read claims); the compiled parts are of this very definition.
    return { ...cached, entry };
  }
  const definition = entry.definition;
  const fields = new Map(definition.fields.map((field) => [field.name, field]));
  const table: DataTable = {
    schema,
    entry,
    definition,
    name: entry.name,
    physical: entry.physical_name,
    key: fields.get(definition.primaryKey[0] as string) as FieldDef,
    fields,
    visible: definition.fields.filter((field) => field.type !== 'tsvector'),
    softDelete: fields.get(systemFields.isDeleted)?.type === 'boolean',
    hasCreatedAt: fields.has(systemFields.createdAt),
    hasUpdatedAt: fields.has(systemFields.updatedAt),
    uniqueSets: uniqueSets(definition),
    validators: compileRecordValidators(definition),
  };
  // Another definition of this version (a restore) takes its place; otherwise the oldest entry makes room.
  if (cached) cache.delete(cacheKey);
  else if (cache.size >= cacheLimit) cache.delete(cache.keys().next().value as string);
  cache.set(cacheKey, table);
  return table;
}

/**
 * The last version of each table this container has seen, by (schema, app and its identities, name): a site or app
 * that got an old slug or id again (stores restored to different moments) never finds the old one's definition.
 */
const latest = new Map<string, DataTable>();
const latestKey = (scope: TableScope, name: string) =>
  JSON.stringify([scope.schema, scope.siteIdentity, scope.app.id, scope.app.created_at, name]);

/** Loads a table of the scope's app; 404 when the app has none of this name. */
export async function openTable(
  sql: Queryable,
  scope: TableScope,
  name: string,
  lock?: 'share' | 'update',
): Promise<DataTable> {
  const entry = await findTable(sql, scope.schema, ownerOf(scope), name, lock);
  if (!entry) {
    latest.delete(latestKey(scope, name));
    throw tableNotFound(name, scope.app.slug);
  }
  // Its records' patterns run on RE2, loaded with the first table that has one.
  await loadPatternEngineFor(entry.definition.fields);
  const table = compileTable(scope.schema, entry);
  if (latest.size >= cacheLimit) latest.delete(latest.keys().next().value as string);
  latest.set(latestKey(scope, name), table);
  return table;
}

/** The definition of a table this container last saw, if any (it may be stale: check the version). */
export function knownTable(scope: TableScope, name: string): DataTable | undefined {
  return latest.get(latestKey(scope, name));
}

/** The column that carries the catalog version beside the rows of a versioned read (not a valid field name). */
export const catalogVersionColumn = 'platform:catalog_version';

/**
 * `FROM` this, a statement built from a cached `table` reads the version of the catalog row the table was compiled
 * from: no row when the table's row is now another one, of another version, or of the same version and another
 * `updated_at` (PostgreSQL restored to an earlier moment, see `cache` above), so that the read or write is not
 * taken as current and runs again with the catalog read. Statements kept as text: `catalogRowText`.
 */
export function catalogRowOf(sql: Queryable, table: DataTable): Fragment {
  return sql`${sql(table.schema)}.catalog WHERE id = ${table.entry.id}
    AND updated_at = ${table.entry.updated_at}::timestamptz`;
}

/** `catalogRowOf` in a statement's text: the catalog entry's id is `$1`, its `updated_at` `$<at>`. */
export function catalogRowText(quotedSchema: string, at: number): string {
  return `${quotedSchema}.catalog WHERE id = $1 AND updated_at = $${at}::timestamptz`;
}

/**
 * A read whose rows come with the table's catalog version, checked in the same statement (one snapshot): the
 * statement `inner` is built from a cached definition, and the outer query tells whether that definition is still
 * the table's. One row with a null key stands for "no rows" (the catalog row is there while the table is and has
 * this definition); no row at all, for a definition that is no longer the table's (`catalogRowOf`).
 */
export function versioned(sql: Queryable, table: DataTable, inner: Fragment): Fragment {
  return sql`SELECT c.version AS ${sql(catalogVersionColumn)}, r.*
    FROM (SELECT version FROM ${catalogRowOf(sql, table)}) AS c
    LEFT JOIN LATERAL (${inner}) AS r ON true`;
}

/** The rows of a versioned read, and whether they were read with the definition they were built from. */
export function unversioned(table: DataTable, rows: readonly Row[]): { current: boolean; rows: Row[] } {
  const version = rows[0]?.[catalogVersionColumn];
  // A loop rather than `filter`: the driver's result is an Array subclass, which `filter` handles on its slow path.
  const key = table.key.name;
  const kept: Row[] = [];
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i] as Row;
    if (row[key] !== null && row[key] !== undefined) kept.push(row);
  }
  return { current: version === table.entry.version, rows: kept };
}

/** A table or column the statement named is gone: the cached definition is older than a schema change. */
export function isSchemaDrift(error: unknown): boolean {
  const state = sqlState(error);
  return state === '42P01' || state === '42703';
}

/**
 * Runs a read against the table's definition as this container last saw it, without reading the catalog first;
 * `read` answers whether its statement ran with the current version (`versioned`). When the definition changed
 * meanwhile (or was never seen), the catalog is read and the read runs again: a schema change is seen at once.
 */
export async function readTable<T>(
  sql: Queryable,
  scope: TableScope,
  name: string,
  read: (table: DataTable) => Promise<{ current: boolean; value: T }>,
): Promise<T> {
  let table = latest.get(latestKey(scope, name));
  for (let attempt = 0; attempt < 3; attempt++) {
    table ??= await openTable(sql, scope, name);
    try {
      const result = await read(table);
      if (result.current) return result.value;
    } catch (error) {
      if (!isSchemaDrift(error))
        throw await mapSqlError(error, { sql, schema: scope.schema, operation: 'read', table: table.entry });
    }
    table = undefined;
  }
  throw new ConflictError({
    code: 'schema_changing',
    message: `The schema of table "${name}" changed during the request: try again.`,
  });
}

export type Row = Record<string, unknown>;

/** A stored row as the API shows it: schema field order, values in their JSON form, no search vector. */
export function present(table: DataTable, row: Row): Row {
  const record: Row = {};
  for (const field of table.visible) {
    const value = row[field.name];
    record[field.name] = value === null || value === undefined ? null : typeRule(field.type).output(value);
  }
  return record;
}

/** The names of the columns a record shows. */
export function visibleColumns(table: DataTable): string[] {
  return table.visible.map((field) => field.name);
}

/** Fields of a body the platform fills in itself are dropped (clients may send records back as they got them). */
export function withoutReadOnly(table: DataTable, body: Row): Row {
  // Keys come from the client: `__proto__` must stay a key (and be refused as unknown), not set a prototype.
  const out: Row = Object.create(null);
  for (const [name, value] of Object.entries(body)) {
    const field = table.fields.get(name);
    if (field && isReadOnly(field)) continue;
    out[name] = value;
  }
  return out;
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A primary-key value read from text (a path segment, `ids`); undefined when it cannot be one. */
export function keyFromText(table: DataTable, text: string): string | number | undefined {
  const key = table.key;
  if (text.includes('\u0000')) return undefined;
  if (key.type === 'integer') {
    if (!/^-?\d{1,16}$/.test(text)) return undefined;
    const value = Number(text);
    return Number.isSafeInteger(value) ? value : undefined;
  }
  if (key.format === 'uuid') return uuidPattern.test(text) ? text.toLowerCase() : undefined;
  return text;
}
