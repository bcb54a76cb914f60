import { newFieldErrors } from '../../field-errors';
import { join, type Queryable, qualified } from '../common/fragments';
import type { DataTable, Row } from '../tables/data-table';
import { fail } from '../tables/errors';
import { comparable, param } from './statements';

/** Foreign-key values checked before a write, so that a missing referenced record is a 400 naming the field. */

/**
 * Checks that every foreign-key value names an existing record (one query per foreign key and request), so that
 * a missing target is a validation message on the field. Values the same request creates in a self-referencing
 * table count as existing.
 */
export async function checkReferences(
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
