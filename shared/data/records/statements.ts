import { canonicalDateTime } from '../../api/datetimes';
import { newFieldErrors } from '../../field-errors';
import type { Sql } from '../../sql/client';
import { isJsonType } from '../common/field-types';
import { type Fragment, identifiers, type Queryable, qualified, type Values } from '../common/fragments';
import type { FieldDef } from '../common/model';
import type { Condition } from '../query/conditions';
import { check } from '../schema/validator';
import {
  type DataTable,
  openTable,
  type Row,
  type TableScope,
  visibleColumns,
  withoutReadOnly,
} from '../tables/data-table';
import { fail, mapSqlError, type SqlOperation } from '../tables/errors';
import { committedEvents } from './outbox';

/**
 * What the record operations share: the write transaction (a share lock on the table's catalog row, so the schema
 * cannot change under it; database errors mapped by SQLSTATE once it is over), body validation against the table
 * schema before any SQL touches the table, and the statement fragments.
 */

/** Records per bulk request. */
export const maxBulkRecords = 1000;

/** PostgreSQL takes at most 65535 bind parameters per statement. */
export const maxParameters = 60_000;

export type Write<T> = (tx: Queryable, table: DataTable) => Promise<T>;

export async function write<T>(
  sql: Sql,
  scope: TableScope,
  name: string,
  operation: SqlOperation,
  work: Write<T>,
): Promise<T> {
  let table: DataTable | undefined;
  let transaction: object | undefined;
  try {
    const result = (await sql.begin(async (tx) => {
      transaction = tx;
      table = await openTable(tx, scope, name, 'share');
      return work(tx, table);
    })) as T;
    committedEvents(transaction);
    return result;
  } catch (error) {
    throw await mapSqlError(error, { sql, schema: scope.schema, operation, table: table?.entry });
  }
}

/**
 * The fragments every statement on a table repeats (its qualified name, its column list), built once per table
 * definition: a fragment holds only quoted identifiers, so statements can share it. A new definition (a schema
 * change) is a new `DataTable`, hence new fragments.
 */
const tableFragments = new WeakMap<DataTable, { from: Fragment; columns: Fragment }>();

function fragmentsOf(sql: Queryable, table: DataTable) {
  let fragments = tableFragments.get(table);
  if (!fragments) {
    fragments = {
      from: qualified(sql, table.schema, table.physical),
      columns: identifiers(sql, visibleColumns(table)),
    };
    tableFragments.set(table, fragments);
  }
  return fragments;
}

export function from(sql: Queryable, table: DataTable): Fragment {
  return fragmentsOf(sql, table).from;
}

export function columns(sql: Queryable, table: DataTable): Fragment {
  return fragmentsOf(sql, table).columns;
}

/** A value as a bind parameter: JSON fields as JSON (a JS array must not become a PostgreSQL array). */
export function param(sql: Queryable, field: FieldDef | undefined, value: unknown): Fragment {
  if (value !== null && field && isJsonType(field.type)) return sql`${sql.json(value as never)}`;
  return sql`${value as string}`;
}

export function isObject(value: unknown): value is Row {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Validates bodies against the table schema; bulk errors are keyed `<index>.<field>`. */
export function validateRows(
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

export function bulkItems(body: unknown[]): unknown[] {
  if (body.length === 0) fail({ non_field_errors: ['Send at least one record.'] });
  if (body.length > maxBulkRecords)
    fail({ non_field_errors: [`Send at most ${maxBulkRecords} records per request.`] });
  return body;
}

/** A value in a form that compares equal however PostgreSQL or the client spelled it. */
export function comparable(field: FieldDef | undefined, value: unknown): string {
  if (value instanceof Date)
    return field?.type === 'date' ? value.toISOString().slice(0, 10) : value.toISOString();
  if (field?.type === 'integer' || field?.type === 'number') return String(Number(value));
  if (field?.type === 'datetime' && typeof value === 'string') return canonicalDateTime(value) ?? value;
  if (field?.format === 'uuid' && typeof value === 'string') return value.toLowerCase();
  return String(value);
}

/** The value list of an INSERT: JSON fields wrapped, nothing undefined. */
export function insertValues(tx: Queryable, table: DataTable, row: Row): Values {
  const out: Record<string, unknown> = Object.create(null);
  for (const [name, value] of Object.entries(row)) {
    const field = table.fields.get(name);
    out[name] = value !== null && field && isJsonType(field.type) ? tx.json(value as never) : value;
  }
  return out as Values;
}

export function keyCondition(table: DataTable, key: unknown): Condition {
  return { field: table.key, operator: 'eq', value: key };
}
