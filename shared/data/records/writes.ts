import { newFieldErrors } from '../../field-errors';
import type { Sql } from '../../sql/client';
import { identifiers, join, type Queryable, sqlState } from '../common/fragments';
import { systemFields } from '../common/model';
import {
  catalogRowOf,
  catalogVersionColumn,
  type DataTable,
  isSchemaDrift,
  knownTable,
  present,
  type Row,
  type TableScope,
} from '../tables/data-table';
import { fail, mapSqlError, unprocessable } from '../tables/errors';
import { keyText, listenedState, listens, type RecordChange, recordChanges, unlistenedCheck } from './outbox';
import { getRecord } from './reads';
import { checkReferences } from './references';
import {
  bulkItems,
  columns,
  from,
  insertValues,
  maxParameters,
  param,
  validateRows,
  write,
} from './statements';

/** Creating records (doc 3, Record operations): one or a bulk array, all or nothing, and upserts. */

/** Inserts rows in order: consecutive rows with the same fields share a statement. */
export async function insertRows(tx: Queryable, table: DataTable, rows: readonly Row[]): Promise<Row[]> {
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

/** SQLSTATE foreign_key_violation. */
const foreignKeyViolation = '23503';

/** Creates one record or, from an array, several in one transaction (all or nothing). */
export async function createRecords(
  sql: Sql,
  scope: TableScope,
  name: string,
  body: unknown,
): Promise<{ records: Row[]; bulk: boolean }> {
  const bulk = Array.isArray(body);
  const quick =
    bulk || recentlyListened(scope, name) ? undefined : await createWithKnownTable(sql, scope, name, body);
  if (quick) return { records: [quick], bulk };
  return write(sql, scope, name, 'write', async (tx, table) => {
    const rows = validateRows(table, bulk ? bulkItems(body) : [body], 'create', bulk);
    await checkReferences(tx, table, rows, bulk);
    const records = await insertRows(tx, table, rows);
    await recordChanges(
      tx,
      scope,
      table,
      records.map((record) => ({ event: 'POST_RECORD_CREATE', record })),
    );
    return { records, bulk };
  });
}

/**
 * Tables whose single-statement create recently found an endpoint listening (its own check failed it): their
 * creates take the transactional path directly for a while, instead of trying the statement that will fail. A
 * hint only: the transactional path asks the database who listens in its own transaction, so a stale entry costs a
 * little speed, never an event. Bounded; an entry lasts `listenedHintMs`.
 */
const listenedHints = new Map<string, number>();
const maxListenedHints = 1000;
const listenedHintMs = 10_000;

const hintKey = (scope: TableScope, name: string) => `${scope.schema}\u0000${scope.app.id}\u0000${name}`;

function recentlyListened(scope: TableScope, name: string): boolean {
  const until = listenedHints.get(hintKey(scope, name));
  return until !== undefined && until > Date.now();
}

function rememberListened(scope: TableScope, name: string): void {
  if (listenedHints.size >= maxListenedHints)
    listenedHints.delete(listenedHints.keys().next().value as string);
  listenedHints.set(hintKey(scope, name), Date.now() + listenedHintMs);
}

/**
 * One record inserted by one statement (no transaction, no catalog read) from the table's definition as this
 * container last saw it, its catalog version returned beside the row. Safe without a lock: a schema change can only
 * add fields (the database fills their defaults and enforces NOT NULL and uniqueness), drop fields (the statement
 * fails and the careful path runs) or add indexes (enforced by the database). Foreign keys are the database's too:
 * an insert that succeeds references existing records. Undefined when the careful path must decide: no known
 * definition, a body the known definition refuses, a dropped column, or a reference to no record (the careful
 * path's check names the field). Nor when an endpoint listens to the table: the statement's own check
 * (`unlistenedCheck`) fails it, nothing is inserted, and the careful path writes the record and its event.
 */
async function createWithKnownTable(
  sql: Sql,
  scope: TableScope,
  name: string,
  body: unknown,
): Promise<Row | undefined> {
  const table = knownTable(scope, name);
  if (!table) return;
  let row: Row;
  try {
    [row] = validateRows(table, [body], 'create', false) as [Row];
  } catch {
    return undefined;
  }
  const names = Object.keys(row).sort();
  const version = sql`(SELECT version FROM ${catalogRowOf(sql, table)})`;
  const returning = sql`RETURNING ${columns(sql, table)}, ${version} AS ${sql(catalogVersionColumn)},
    ${unlistenedCheck(sql, scope, table)} AS "_unlistened"`;
  let inserted: Row | undefined;
  try {
    [inserted] =
      names.length === 0
        ? await sql`INSERT INTO ${from(sql, table)} DEFAULT VALUES ${returning}`
        : await sql`INSERT INTO ${from(sql, table)} ${sql([insertValues(sql, table, row)], names)} ${returning}`;
  } catch (error) {
    // A reference to no record: the careful path names the field (checkReferences), as a 400.
    if (sqlState(error) === listenedState) {
      rememberListened(scope, name);
      return undefined;
    }
    if (isSchemaDrift(error) || sqlState(error) === foreignKeyViolation) return undefined;
    throw await mapSqlError(error, { sql, schema: scope.schema, operation: 'write', table: table.entry });
  }
  if (!inserted) return undefined;
  if (inserted[catalogVersionColumn] === table.entry.version) return present(table, inserted);
  // Inserted while the schema changed: show the record as the table is now.
  const key = inserted[table.key.name];
  return getRecord(sql, scope, name, String(key), 'all');
}

/** The record whose unique fields have the row's values, locked for the upsert that follows. */
async function currentByFields(
  tx: Queryable,
  table: DataTable,
  fields: readonly string[],
  row: Row,
): Promise<Row | undefined> {
  const where = fields.map((field) => tx`${tx(field)} = ${param(tx, table.fields.get(field), row[field])}`);
  const [found] =
    await tx`SELECT ${columns(tx, table)} FROM ${from(tx, table)} WHERE ${join(tx, where, ' AND ')}
    FOR UPDATE`;
  return found ? present(table, found) : undefined;
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
    const events: RecordChange[] | undefined = (await listens(tx, scope, table)) ? [] : undefined;
    for (const row of rows) {
      // The record as it was, when an endpoint listens: by the upsert's unique fields, locked until the commit.
      const previous = events ? await currentByFields(tx, table, target, row) : undefined;
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
      const record = present(table, stored as Row);
      records.push(record);
      created.push((stored as Row)._created === true);
      if (events)
        events.push(
          previous && keyText(table, previous) === keyText(table, record)
            ? { event: 'POST_RECORD_UPDATE', record, previous }
            : { event: 'POST_RECORD_CREATE', record },
        );
    }
    if (events) await recordChanges(tx, scope, table, events);
    return { records, created, bulk };
  });
}
