import { newFieldErrors } from '../../field-errors';
import type { Sql } from '../../sql/client';
import { type Fragment, join, type Queryable } from '../common/fragments';
import { systemFields } from '../common/model';
import { type Condition, type RecordQuery, type Visibility, whereClause } from '../query/conditions';
import { type DataTable, keyFromText, present, type Row, type TableScope } from '../tables/data-table';
import { fail, recordNotFound } from '../tables/errors';
import { checkReferences } from './references';
import { bulkItems, columns, comparable, from, keyCondition, param, validateRows, write } from './statements';

/** Changing and deleting records (doc 3, Record operations): by key, by keys, or by a filter. */

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
