import { newFieldErrors } from '../../field-errors';
import type { Sql } from '../../sql/client';
import { type Fragment, join, type Queryable } from '../common/fragments';
import { systemFields } from '../common/model';
import { type Condition, type RecordQuery, type Visibility, whereClause } from '../query/conditions';
import { type DataTable, keyFromText, present, type Row, type TableScope } from '../tables/data-table';
import { fail, recordNotFound } from '../tables/errors';
import { keyText, listens, type RecordChange, recordChanges } from './outbox';
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

/** The records a condition matches, locked for the change that follows, by key (only when an endpoint listens). */
async function previousRows(tx: Queryable, table: DataTable, query: RecordQuery): Promise<Map<string, Row>> {
  const rows =
    await tx`SELECT ${columns(tx, table)} FROM ${from(tx, table)} WHERE ${whereClause(tx, table, query)}
    FOR UPDATE`;
  return new Map(rows.map((row) => [keyText(table, present(table, row)), present(table, row)]));
}

/** Changes one record by key; with `events`, its change is added to them (the record as it was, and as it is). */
async function updateByKey(
  tx: Queryable,
  table: DataTable,
  key: unknown,
  changes: Row,
  visibility: Visibility,
  events?: RecordChange[],
): Promise<Row | undefined> {
  const query = { conditions: [keyCondition(table, key)], visibility };
  const where = whereClause(tx, table, query);
  const sets = setList(tx, table, changes);
  const before = events && sets.length > 0 ? await previousRows(tx, table, query) : undefined;
  const [row] =
    sets.length === 0
      ? await tx`SELECT ${columns(tx, table)} FROM ${from(tx, table)} WHERE ${where}`
      : await tx`UPDATE ${from(tx, table)} SET ${join(tx, sets)} WHERE ${where} RETURNING ${columns(tx, table)}`;
  if (!row) return undefined;
  const record = present(table, row);
  const previous = before?.get(keyText(table, record));
  if (events && previous) events.push({ event: 'POST_RECORD_UPDATE', record, previous });
  return record;
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
    const events: RecordChange[] | undefined = (await listens(tx, scope, table)) ? [] : undefined;
    const updated = await updateByKey(tx, table, key, changes, visibility, events);
    if (!updated) throw recordNotFound(id);
    if (events) await recordChanges(tx, scope, table, events);
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
    const events: RecordChange[] | undefined = (await listens(tx, scope, table)) ? [] : undefined;
    for (const change of changes) {
      const updated = await updateByKey(tx, table, change.key, change.rest, 'live', events);
      if (!updated) throw recordNotFound(change.key);
      records.push(updated);
    }
    if (events) await recordChanges(tx, scope, table, events);
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
    const before = (await listens(tx, scope, table)) ? await previousRows(tx, table, query) : undefined;
    const rows = await tx`UPDATE ${from(tx, table)} SET ${join(tx, setList(tx, table, changes))}
      WHERE ${whereClause(tx, table, query)} RETURNING ${columns(tx, table)}`;
    const records = rows.map((stored) => present(table, stored));
    if (before)
      await recordChanges(
        tx,
        scope,
        table,
        records.flatMap((record): RecordChange[] => {
          const previous = before.get(keyText(table, record));
          return previous ? [{ event: 'POST_RECORD_UPDATE', record, previous }] : [];
        }),
      );
    return { records, total: rows.length };
  });
}

/**
 * Removes records that match a condition: soft (is_deleted = true, live records only) when the table has
 * `is_deleted` and `hard` is false; otherwise a real DELETE, with the foreign-key rules of the referencing tables.
 */
async function removeWhere(
  tx: Queryable,
  scope: TableScope,
  table: DataTable,
  conditions: Condition[],
  hard: boolean,
): Promise<Row[]> {
  const soft = table.softDelete && !hard;
  const query: RecordQuery = { conditions, visibility: soft ? 'live' : 'all' };
  const listened = await listens(tx, scope, table);
  const before = listened ? await previousRows(tx, table, query) : undefined;
  const where = whereClause(tx, table, query);
  let removed: Row[];
  if (soft) {
    const sets = [tx`${tx(systemFields.isDeleted)} = true`];
    if (table.hasUpdatedAt) sets.push(tx`${tx(systemFields.updatedAt)} = now()`);
    removed = [
      ...(listened
        ? await tx`UPDATE ${from(tx, table)} SET ${join(tx, sets)} WHERE ${where} RETURNING ${columns(tx, table)}`
        : await tx`UPDATE ${from(tx, table)} SET ${join(tx, sets)} WHERE ${where} RETURNING ${tx(table.key.name)}`),
    ];
  } else
    removed = [...(await tx`DELETE FROM ${from(tx, table)} WHERE ${where} RETURNING ${tx(table.key.name)}`)];
  if (before)
    await recordChanges(
      tx,
      scope,
      table,
      removed.flatMap((row): RecordChange[] => {
        const shown = present(table, row);
        const previous = before.get(keyText(table, shown));
        if (!previous) return [];
        return soft
          ? [{ event: 'POST_RECORD_DELETE', previous, record: shown, deletion: 'soft' }]
          : [{ event: 'POST_RECORD_DELETE', previous, deletion: 'hard' }];
      }),
    );
  return removed;
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
    const removed = await removeWhere(tx, scope, table, [keyCondition(table, key)], hard);
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
    const removed = await removeWhere(
      tx,
      scope,
      table,
      [{ field: table.key, operator: 'in', value: keys }],
      hard,
    );
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
    const removed = await removeWhere(tx, scope, table, conditions, hard);
    return { deleted: removed.length };
  });
}
