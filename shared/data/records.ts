import { type FieldErrors, ValidationError } from '../errors';
import { newFieldErrors, summarize } from '../http/validation';
import type { Sql } from '../sql/client';
import { canonicalDateTime } from './datetimes';
import { mapSqlError, recordNotFound, type SqlOperation, unprocessable } from './errors';
import type { FieldDef } from './model';
import { systemFields } from './model';
import {
  type Condition,
  orderBy,
  type PageRequest,
  type RecordQuery,
  type Visibility,
  whereClause,
} from './query';
import { type Fragment, identifiers, join, type Queryable, qualified, type Values } from './sql';
import {
  catalogVersionColumn,
  type DataTable,
  isSchemaDrift,
  keyFromText,
  knownTable,
  openTable,
  present,
  type Row,
  readTable,
  type TableScope,
  unversioned,
  versioned,
  visibleColumns,
  withoutReadOnly,
} from './table';
import { isJsonType } from './types';
import { check } from './validator';

/**
 * Record operations (doc 3, Record operations). Every write runs in one transaction that first takes a share lock
 * on the table's catalog row (so the schema cannot change under it), validates against the table schema before
 * any SQL touches the table, and maps database errors by SQLSTATE once the transaction is over.
 */

/** Records per bulk request. */
export const maxBulkRecords = 1000;

/** PostgreSQL takes at most 65535 bind parameters per statement. */
const maxParameters = 60_000;

type Write<T> = (tx: Queryable, table: DataTable) => Promise<T>;

async function write<T>(
  sql: Sql,
  scope: TableScope,
  name: string,
  operation: SqlOperation,
  work: Write<T>,
): Promise<T> {
  let table: DataTable | undefined;
  try {
    return (await sql.begin(async (tx) => {
      table = await openTable(tx, scope, name, 'share');
      return work(tx, table);
    })) as T;
  } catch (error) {
    throw await mapSqlError(error, { sql, schema: scope.schema, operation, table: table?.entry });
  }
}

function from(sql: Queryable, table: DataTable): Fragment {
  return qualified(sql, table.schema, table.physical);
}

function columns(sql: Queryable, table: DataTable): Fragment {
  return identifiers(sql, visibleColumns(table));
}

/** A value as a bind parameter: JSON fields as JSON (a JS array must not become a PostgreSQL array). */
function param(sql: Queryable, field: FieldDef | undefined, value: unknown): Fragment {
  if (value !== null && field && isJsonType(field.type)) return sql`${sql.json(value as never)}`;
  return sql`${value as string}`;
}

function isObject(value: unknown): value is Row {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function fail(errors: FieldErrors): never {
  throw new ValidationError(errors, summarize(errors));
}

/** Validates bodies against the table schema; bulk errors are keyed `<index>.<field>`. */
function validateRows(
  table: DataTable,
  items: readonly unknown[],
  mode: 'create' | 'patch',
  bulk: boolean,
): Row[] {
  const errors = newFieldErrors();
  const rows: Row[] = [];
  items.forEach((item, index) => {
    const prefix = bulk ? String(index) : '';
    if (!isObject(item)) {
      errors[prefix || 'non_field_errors'] = ['Must be a JSON object.'];
      return;
    }
    const row = withoutReadOnly(table, item);
    const validator = mode === 'create' ? table.validators.create : table.validators.patch;
    const problems = check(validator, row, prefix);
    if (problems) Object.assign(errors, problems);
    rows.push(row);
  });
  if (Object.keys(errors).length > 0) fail(errors);
  return rows;
}

function bulkItems(body: unknown[]): unknown[] {
  if (body.length === 0) fail({ non_field_errors: ['Send at least one record.'] });
  if (body.length > maxBulkRecords)
    fail({ non_field_errors: [`Send at most ${maxBulkRecords} records per request.`] });
  return body;
}

/** A value in a form that compares equal however PostgreSQL or the client spelled it. */
function comparable(field: FieldDef | undefined, value: unknown): string {
  if (value instanceof Date)
    return field?.type === 'date' ? value.toISOString().slice(0, 10) : value.toISOString();
  if (field?.type === 'integer' || field?.type === 'number') return String(Number(value));
  if (field?.type === 'datetime' && typeof value === 'string') return canonicalDateTime(value) ?? value;
  if (field?.format === 'uuid' && typeof value === 'string') return value.toLowerCase();
  return String(value);
}

/**
 * Checks that every foreign-key value names an existing record (one query per foreign key and request), so that
 * a missing target is a validation message on the field. Values the same request creates in a self-referencing
 * table count as existing.
 */
async function checkReferences(
  tx: Queryable,
  table: DataTable,
  rows: readonly Row[],
  bulk: boolean,
): Promise<void> {
  const errors = newFieldErrors();
  for (const info of Object.values(table.entry.layout.constraints)) {
    if (info.kind !== 'foreign' || !info.referencesPhysical || !info.referencedFields) continue;
    const fields = info.fields;
    const refs = info.referencedFields;
    const refDefs = fields.map((name) => table.fields.get(name));
    const keyOf = (values: unknown[]) =>
      JSON.stringify(values.map((value, index) => comparable(refDefs[index], value)));
    const wanted = rows
      .map((row, index) => ({ index, values: fields.map((field) => row[field]) }))
      .filter((item) => item.values.every((value) => value !== undefined && value !== null));
    if (wanted.length === 0) continue;
    const known = new Set<string>();
    if (info.referencesPhysical === table.physical) {
      for (const row of rows) {
        const values = refs.map((field) => row[field]);
        if (values.every((value) => value !== undefined && value !== null)) known.add(keyOf(values));
      }
    }
    const missing = new Map<string, unknown[]>();
    for (const item of wanted)
      if (!known.has(keyOf(item.values))) missing.set(keyOf(item.values), item.values);
    if (missing.size === 0) continue;
    const target = qualified(tx, table.schema, info.referencesPhysical);
    if (refs.length === 1) {
      const column = tx(refs[0] as string);
      const values = [...missing.values()].map((tuple) => tuple[0]);
      const found =
        await tx`SELECT ${column} AS value FROM ${target} WHERE ${column} = ANY(${values as string[]})`;
      for (const row of found) known.add(keyOf([row.value]));
    } else {
      for (const [key, tuple] of missing) {
        const match = refs.map(
          (field, index) => tx`${tx(field)} = ${param(tx, refDefs[index], tuple[index])}`,
        );
        const [found] = await tx`SELECT 1 AS found FROM ${target} WHERE ${join(tx, match, ' AND ')} LIMIT 1`;
        if (found) known.add(key);
      }
    }
    for (const item of wanted) {
      if (known.has(keyOf(item.values))) continue;
      const field = fields[0] as string;
      const shown = item.values.map((value) => JSON.stringify(value)).join(', ');
      errors[bulk ? `${item.index}.${field}` : field] = [
        `No "${info.references}" record has ${refs.join(', ')} ${shown}.`,
      ];
    }
  }
  if (Object.keys(errors).length > 0) fail(errors);
}

/** The value list of an INSERT: JSON fields wrapped, nothing undefined. */
function insertValues(tx: Queryable, table: DataTable, row: Row): Values {
  const out: Record<string, unknown> = Object.create(null);
  for (const [name, value] of Object.entries(row)) {
    const field = table.fields.get(name);
    out[name] = value !== null && field && isJsonType(field.type) ? tx.json(value as never) : value;
  }
  return out as Values;
}

/** Inserts rows in order: consecutive rows with the same fields share a statement. */
async function insertRows(tx: Queryable, table: DataTable, rows: readonly Row[]): Promise<Row[]> {
  const inserted: Row[] = [];
  let start = 0;
  while (start < rows.length) {
    const names = Object.keys(rows[start] as Row).sort();
    const signature = names.join(',');
    const perStatement = Math.max(1, Math.floor(maxParameters / Math.max(1, names.length)));
    let end = start + 1;
    while (
      end < rows.length &&
      end - start < perStatement &&
      Object.keys(rows[end] as Row)
        .sort()
        .join(',') === signature
    )
      end++;
    const batch = rows.slice(start, end);
    if (names.length === 0) {
      for (const _ of batch)
        inserted.push(
          ...(await tx`INSERT INTO ${from(tx, table)} DEFAULT VALUES RETURNING ${columns(tx, table)}`),
        );
    } else {
      const values = batch.map((row) => insertValues(tx, table, row));
      inserted.push(
        ...(await tx`INSERT INTO ${from(tx, table)} ${tx(values, names)} RETURNING ${columns(tx, table)}`),
      );
    }
    start = end;
  }
  return inserted.map((row) => present(table, row));
}

/** Creates one record or, from an array, several in one transaction (all or nothing). */
export async function createRecords(
  sql: Sql,
  scope: TableScope,
  name: string,
  body: unknown,
): Promise<{ records: Row[]; bulk: boolean }> {
  const bulk = Array.isArray(body);
  const quick = bulk ? undefined : await createWithKnownTable(sql, scope, name, body);
  if (quick) return { records: [quick], bulk };
  return write(sql, scope, name, 'write', async (tx, table) => {
    const rows = validateRows(table, bulk ? bulkItems(body) : [body], 'create', bulk);
    await checkReferences(tx, table, rows, bulk);
    return { records: await insertRows(tx, table, rows), bulk };
  });
}

/**
 * One record inserted by one statement (no transaction, no catalog read) from the table's definition as this
 * container last saw it, its catalog version returned beside the row. Safe without a lock: a schema change can only
 * add fields (the database fills their defaults and enforces NOT NULL and uniqueness), drop fields (the statement
 * fails and the careful path runs) or add indexes (enforced by the database). Undefined when the careful path must
 * decide: no known definition, foreign keys to check, a body the known definition refuses, or a dropped column.
 */
async function createWithKnownTable(
  sql: Sql,
  scope: TableScope,
  name: string,
  body: unknown,
): Promise<Row | undefined> {
  const table = knownTable(scope, name);
  if (!table || Object.values(table.entry.layout.constraints).some((info) => info.kind === 'foreign')) return;
  let row: Row;
  try {
    [row] = validateRows(table, [body], 'create', false) as [Row];
  } catch {
    return undefined;
  }
  const names = Object.keys(row).sort();
  const version = sql`(SELECT version FROM ${sql(table.schema)}.catalog WHERE id = ${table.entry.id})`;
  const returning = sql`RETURNING ${columns(sql, table)}, ${version} AS ${sql(catalogVersionColumn)}`;
  let inserted: Row | undefined;
  try {
    [inserted] =
      names.length === 0
        ? await sql`INSERT INTO ${from(sql, table)} DEFAULT VALUES ${returning}`
        : await sql`INSERT INTO ${from(sql, table)} ${sql([insertValues(sql, table, row)], names)} ${returning}`;
  } catch (error) {
    if (isSchemaDrift(error)) return undefined;
    throw await mapSqlError(error, { sql, schema: scope.schema, operation: 'write', table: table.entry });
  }
  if (!inserted) return undefined;
  if (inserted[catalogVersionColumn] === table.entry.version) return present(table, inserted);
  // Inserted while the schema changed: show the record as the table is now.
  const key = inserted[table.key.name];
  return getRecord(sql, scope, name, String(key), 'all');
}

/** The `unique_fields` of an upsert: fields of the table that together form one of its unique constraints. */
function upsertTarget(table: DataTable, uniqueFields: readonly string[]): string[] {
  const fields = [...new Set(uniqueFields)];
  const unknown = fields.filter((field) => !table.fields.has(field));
  if (fields.length === 0) fail({ unique_fields: ['Name the field or fields that identify a record.'] });
  if (unknown.length > 0) fail({ unique_fields: unknown.map((field) => `Unknown field "${field}".`) });
  const matches = table.uniqueSets.some(
    (set) => set.length === fields.length && set.every((field) => fields.includes(field)),
  );
  if (!matches)
    throw unprocessable(
      'upsert_without_unique_constraint',
      'Cannot upsert',
      `No unique constraint of table "${table.name}" is exactly (${fields.join(', ')}): declare one (constraints.unique, uniqueKeys or a unique index) to upsert on these fields.`,
    );
  return fields;
}

/**
 * Creates or updates records by the values of unique fields (INSERT … ON CONFLICT, atomic per record, all records
 * in one transaction). An update revives a soft-deleted record unless the body says otherwise.
 */
export async function upsertRecords(
  sql: Sql,
  scope: TableScope,
  name: string,
  uniqueFields: readonly string[],
  body: unknown,
): Promise<{ records: Row[]; created: boolean[]; bulk: boolean }> {
  const bulk = Array.isArray(body);
  return write(sql, scope, name, 'write', async (tx, table) => {
    const target = upsertTarget(table, uniqueFields);
    const rows = validateRows(table, bulk ? bulkItems(body) : [body], 'create', bulk);
    const errors = newFieldErrors();
    rows.forEach((row, index) => {
      for (const field of target)
        if (row[field] === undefined || row[field] === null)
          errors[bulk ? `${index}.${field}` : field] = [
            'An upsert needs a value for each of its unique fields.',
          ];
    });
    if (Object.keys(errors).length > 0) fail(errors);
    await checkReferences(tx, table, rows, bulk);
    const records: Row[] = [];
    const created: boolean[] = [];
    for (const row of rows) {
      const names = Object.keys(row);
      const changed = names.filter((field) => !target.includes(field) && field !== table.key.name);
      const sets = (changed.length > 0 ? changed : [target[0] as string]).map(
        (field) => tx`${tx(field)} = EXCLUDED.${tx(field)}`,
      );
      if (table.hasUpdatedAt) sets.push(tx`${tx(systemFields.updatedAt)} = now()`);
      if (table.softDelete && row[systemFields.isDeleted] === undefined)
        sets.push(tx`${tx(systemFields.isDeleted)} = false`);
      const [stored] = await tx`INSERT INTO ${from(tx, table)} ${tx(insertValues(tx, table, row), names)}
        ON CONFLICT (${identifiers(tx, target)}) DO UPDATE SET ${join(tx, sets)}
        RETURNING ${columns(tx, table)}, (xmax = 0) AS "_created"`;
      records.push(present(table, stored as Row));
      created.push((stored as Row)._created === true);
    }
    return { records, created, bulk };
  });
}

/** One record by its key; soft-deleted records only with `include_deleted`. */
export async function getRecord(
  sql: Sql,
  scope: TableScope,
  name: string,
  id: string,
  visibility: Visibility,
): Promise<Row> {
  const row = await readTable(sql, scope, name, async (table) => {
    const key = keyFromText(table, id);
    if (key === undefined) throw recordNotFound(id);
    const where = whereClause(sql, table, { conditions: [keyCondition(table, key)], visibility });
    const { current, rows } = unversioned(
      table,
      await sql`${versioned(sql, table, sql`SELECT ${columns(sql, table)} FROM ${from(sql, table)} WHERE ${where}`)}`,
    );
    return { current, value: rows[0] ? present(table, rows[0]) : undefined };
  });
  if (!row) throw recordNotFound(id);
  return row;
}

/** The statement of one page of a list: the matching records in list order (index-served by default). */
export function pageStatement(
  sql: Queryable,
  table: DataTable,
  where: Fragment,
  page: PageRequest,
): Fragment {
  return sql`SELECT ${columns(sql, table)} FROM ${from(sql, table)} WHERE ${where}
    ORDER BY ${orderBy(sql, table)} LIMIT ${page.pageSize} OFFSET ${(page.page - 1) * page.pageSize}`;
}

/** A page of records and the number of records that match. */
export async function listRecords(
  sql: Sql,
  scope: TableScope,
  name: string,
  buildQuery: (table: DataTable) => RecordQuery,
  page: PageRequest,
): Promise<{ records: Row[]; total: number }> {
  return readTable(sql, scope, name, async (table) => {
    const where = whereClause(sql, table, buildQuery(table));
    // The page and the total are independent: sent together, they cost one round trip, not two.
    const [counted, paged] = await Promise.all([
      sql`SELECT count(*)::integer AS total FROM ${from(sql, table)} WHERE ${where}`,
      sql`${versioned(sql, table, pageStatement(sql, table, where, page))}`,
    ]);
    const { current, rows } = unversioned(table, paged);
    const total = Number(counted[0]?.total ?? 0);
    return { current, value: { records: rows.map((row) => present(table, row)), total } };
  });
}

function keyCondition(table: DataTable, key: unknown): Condition {
  return { field: table.key, operator: 'eq', value: key };
}

/** The SET list of an update; `updated_at` follows any change. */
function setList(tx: Queryable, table: DataTable, changes: Row): Fragment[] {
  const sets = Object.entries(changes).map(
    ([field, value]) => tx`${tx(field)} = ${param(tx, table.fields.get(field), value)}`,
  );
  if (sets.length > 0 && table.hasUpdatedAt) sets.push(tx`${tx(systemFields.updatedAt)} = now()`);
  return sets;
}

/** Drops the key from a patch after checking it is unchanged: keys identify records, they never change. */
function withoutKey(table: DataTable, key: unknown, row: Row, path: string): Row {
  const keyName = table.key.name;
  if (row[keyName] === undefined) return row;
  if (comparable(table.key, row[keyName]) !== comparable(table.key, key))
    fail({ [path ? `${path}.${keyName}` : keyName]: ['The primary key of a record cannot be changed.'] });
  const { [keyName]: _, ...rest } = row;
  return rest;
}

async function updateByKey(
  tx: Queryable,
  table: DataTable,
  key: unknown,
  changes: Row,
  visibility: Visibility,
): Promise<Row | undefined> {
  const where = whereClause(tx, table, { conditions: [keyCondition(table, key)], visibility });
  const sets = setList(tx, table, changes);
  const [row] =
    sets.length === 0
      ? await tx`SELECT ${columns(tx, table)} FROM ${from(tx, table)} WHERE ${where}`
      : await tx`UPDATE ${from(tx, table)} SET ${join(tx, sets)} WHERE ${where} RETURNING ${columns(tx, table)}`;
  return row ? present(table, row) : undefined;
}

/** Changes some fields of one record. */
export async function updateRecord(
  sql: Sql,
  scope: TableScope,
  name: string,
  id: string,
  body: unknown,
  visibility: Visibility,
): Promise<Row> {
  return write(sql, scope, name, 'write', async (tx, table) => {
    const key = keyFromText(table, id);
    if (key === undefined) throw recordNotFound(id);
    const [row] = validateRows(table, [body], 'patch', false);
    const changes = withoutKey(table, key, row as Row, '');
    await checkReferences(tx, table, [changes], false);
    const updated = await updateByKey(tx, table, key, changes, visibility);
    if (!updated) throw recordNotFound(id);
    return updated;
  });
}

/** Changes several records, each object naming its record by key; all or nothing. */
export async function updateRecordsByKey(
  sql: Sql,
  scope: TableScope,
  name: string,
  body: unknown[],
): Promise<Row[]> {
  return write(sql, scope, name, 'write', async (tx, table) => {
    const items = bulkItems(body);
    const rows = validateRows(table, items, 'patch', true);
    const keyName = table.key.name;
    const errors = newFieldErrors();
    const changes = rows.map((row, index) => {
      const raw = row[keyName];
      const key = raw === undefined || raw === null ? undefined : keyFromText(table, String(raw));
      if (raw === undefined || raw === null) errors[`${index}.${keyName}`] = ['This field is required.'];
      else if (key === undefined) errors[`${index}.${keyName}`] = [`"${String(raw)}" is not a valid key.`];
      const { [keyName]: _, ...rest } = row;
      return { key, rest };
    });
    if (Object.keys(errors).length > 0) fail(errors);
    await checkReferences(
      tx,
      table,
      changes.map((change) => change.rest),
      true,
    );
    const records: Row[] = [];
    for (const change of changes) {
      const updated = await updateByKey(tx, table, change.key, change.rest, 'live');
      if (!updated) throw recordNotFound(change.key);
      records.push(updated);
    }
    return records;
  });
}

/** Changes the same fields of every record that matches the filters (the collection PATCH with filters). */
export async function updateMatching(
  sql: Sql,
  scope: TableScope,
  name: string,
  buildQuery: (table: DataTable) => RecordQuery,
  body: unknown,
): Promise<{ records: Row[]; total: number }> {
  return write(sql, scope, name, 'write', async (tx, table) => {
    const query = buildQuery(table);
    if (query.conditions.length === 0)
      fail({
        non_field_errors: [
          'Name at least one filter in the query string; to change records by key, send an array of objects with their keys.',
        ],
      });
    const [row] = validateRows(table, [body], 'patch', false);
    const changes = row as Row;
    if (changes[table.key.name] !== undefined)
      fail({ [table.key.name]: ['The primary key of records cannot be changed.'] });
    if (Object.keys(changes).length === 0) fail({ non_field_errors: ['Send at least one field to change.'] });
    await checkReferences(tx, table, [changes], false);
    const rows = await tx`UPDATE ${from(tx, table)} SET ${join(tx, setList(tx, table, changes))}
      WHERE ${whereClause(tx, table, query)} RETURNING ${columns(tx, table)}`;
    return { records: rows.map((stored) => present(table, stored)), total: rows.length };
  });
}

/**
 * Removes records that match a condition: soft (is_deleted = true, live records only) when the table has
 * `is_deleted` and `hard` is false; otherwise a real DELETE, with the foreign-key rules of the referencing tables.
 */
async function removeWhere(
  tx: Queryable,
  table: DataTable,
  conditions: Condition[],
  hard: boolean,
): Promise<Row[]> {
  if (table.softDelete && !hard) {
    const sets = [tx`${tx(systemFields.isDeleted)} = true`];
    if (table.hasUpdatedAt) sets.push(tx`${tx(systemFields.updatedAt)} = now()`);
    const where = whereClause(tx, table, { conditions, visibility: 'live' });
    return [
      ...(await tx`UPDATE ${from(tx, table)} SET ${join(tx, sets)} WHERE ${where} RETURNING ${tx(table.key.name)}`),
    ];
  }
  const where = whereClause(tx, table, { conditions, visibility: 'all' });
  return [...(await tx`DELETE FROM ${from(tx, table)} WHERE ${where} RETURNING ${tx(table.key.name)}`)];
}

/** Deletes one record; 404 when it does not exist (or is already soft-deleted, for a soft delete). */
export async function deleteRecord(
  sql: Sql,
  scope: TableScope,
  name: string,
  id: string,
  hard: boolean,
): Promise<void> {
  await write(sql, scope, name, 'delete', async (tx, table) => {
    const key = keyFromText(table, id);
    if (key === undefined) throw recordNotFound(id);
    const removed = await removeWhere(tx, table, [keyCondition(table, key)], hard);
    if (removed.length === 0) throw recordNotFound(id);
  });
}

/** Deletes the records of a list of keys; keys of no (live) record are skipped. */
export async function deleteByKeys(
  sql: Sql,
  scope: TableScope,
  name: string,
  ids: readonly string[],
  hard: boolean,
): Promise<{ deleted: number; ids: unknown[] }> {
  return write(sql, scope, name, 'delete', async (tx, table) => {
    const invalid = ids.filter((id) => keyFromText(table, id) === undefined);
    if (invalid.length > 0) fail({ ids: invalid.map((id) => `"${id}" is not a valid key.`) });
    const keys = [...new Set(ids.map((id) => keyFromText(table, id)))];
    const removed = await removeWhere(tx, table, [{ field: table.key, operator: 'in', value: keys }], hard);
    const deleted = removed.map((row) => present(table, row)[table.key.name]);
    return { deleted: deleted.length, ids: deleted };
  });
}

/** Deletes every record that matches the filter's conditions. */
export async function deleteMatching(
  sql: Sql,
  scope: TableScope,
  name: string,
  conditionsOf: (table: DataTable) => Condition[],
  hard: boolean,
): Promise<{ deleted: number }> {
  return write(sql, scope, name, 'delete', async (tx, table) => {
    const conditions = conditionsOf(table);
    if (conditions.length === 0) fail({ filter: ['Name at least one field condition.'] });
    const removed = await removeWhere(tx, table, conditions, hard);
    return { deleted: removed.length };
  });
}

/** Reads a comma-separated or repeated query parameter. */
export function listParameter(params: URLSearchParams, name: string): string[] {
  return params
    .getAll(name)
    .flatMap((value) => value.split(','))
    .map((value) => value.trim())
    .filter((value) => value !== '');
}
