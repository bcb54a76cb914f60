import { ValidationError } from '../../errors';
import type { Sql } from '../../sql/client';
import {
  type DataTable,
  present,
  type Row,
  readTable,
  type TableScope,
  unversioned,
  versioned,
} from '../tables/data-table';
import { columns, comparable, from } from './statements';

/**
 * `populate`: records referenced by single-field foreign keys, embedded in the records that reference them. A
 * relationship is named by its field without the `_id` suffix (`author_id` → `author`) or by the field itself;
 * `*` names every one. One query per relationship for the whole page (sent together), never one per record.
 */

export interface Relationship {
  /** The key the referenced record is embedded under. */
  name: string;
  field: string;
  /** The referenced table's name (the table itself for a self-reference). */
  resource: string;
  referenced: string;
}

/** The single-field foreign keys of a table as relationships. */
export function relationshipsOf(table: DataTable): Relationship[] {
  return table.definition.foreignKeys
    .filter((key) => key.fields.length === 1 && key.reference.fields.length === 1)
    .map((key) => {
      const field = key.fields[0] as string;
      return {
        name: field.endsWith('_id') && field.length > 3 ? field.slice(0, -3) : field,
        field,
        resource: key.reference.resource === '' ? table.name : key.reference.resource,
        referenced: key.reference.fields[0] as string,
      };
    });
}

/** The relationships a `populate` parameter names; a 400 naming any that is not one. */
export function populateOf(table: DataTable, params: URLSearchParams): Relationship[] {
  const text = params.get('populate');
  if (text === null) return [];
  const all = relationshipsOf(table);
  const names = text
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.includes('*')) return all;
  const chosen = new Map<string, Relationship>();
  for (const name of names) {
    const found = all.find((item) => item.name === name || item.field === name);
    if (!found)
      throw ValidationError.field('populate', `Table "${table.name}" has no relationship "${name}".`);
    chosen.set(found.field, found);
  }
  return [...chosen.values()];
}

/** The referenced records of one relationship, by their comparable key. */
async function referencedRecords(
  sql: Sql,
  scope: TableScope,
  relationship: Relationship,
  values: unknown[],
): Promise<Map<string, Row>> {
  return readTable(sql, scope, relationship.resource, async (target: DataTable) => {
    const field = target.fields.get(relationship.referenced);
    const column = sql`${sql(relationship.referenced)}`;
    const rows = await sql`${versioned(
      sql,
      target,
      sql`SELECT ${columns(sql, target)} FROM ${from(sql, target)} WHERE ${column} = ANY(${values as string[]})`,
    )}`;
    const { current, rows: found } = unversioned(target, rows);
    const byKey = new Map<string, Row>();
    for (const row of found) byKey.set(comparable(field, row[relationship.referenced]), present(target, row));
    return { current, value: byKey };
  });
}

/** Embeds the referenced records of each relationship in `records` (in place), null when there is none. */
export async function populate(
  sql: Sql,
  scope: TableScope,
  table: DataTable,
  records: Row[],
  relationships: readonly Relationship[],
): Promise<void> {
  await Promise.all(
    relationships.map(async (relationship) => {
      const field = table.fields.get(relationship.field);
      const values = new Map<string, unknown>();
      for (const record of records) {
        const value = record[relationship.field];
        if (value !== null && value !== undefined) values.set(comparable(field, value), value);
      }
      const found =
        values.size === 0
          ? new Map<string, Row>()
          : await referencedRecords(sql, scope, relationship, [...values.values()]);
      for (const record of records) {
        const value = record[relationship.field];
        record[relationship.name] =
          value === null || value === undefined ? null : (found.get(comparable(field, value)) ?? null);
      }
    }),
  );
}
