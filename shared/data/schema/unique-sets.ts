import type { TableSchema } from '../common/model';

/** Whether two field lists name the same fields, in any order. */
function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item) => b.includes(item));
}

/** The field sets that are unique in a table: its key, unique fields, unique keys and unique indexes. */
export function uniqueSets(schema: TableSchema): string[][] {
  return [
    schema.primaryKey,
    ...schema.fields.filter((field) => field.constraints?.unique).map((field) => [field.name]),
    ...schema.uniqueKeys,
    ...schema.indexes.filter((index) => index.unique).map((index) => index.fields),
  ];
}

/** Whether the fields are one of the table's unique sets (an upsert's conflict target, a reference's target). */
export function hasUniqueSet(schema: TableSchema, fields: readonly string[]): boolean {
  return uniqueSets(schema).some((set) => sameSet(set, fields));
}
