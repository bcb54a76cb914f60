import { columnType } from '../common/field-types';
import type { TableSchema } from '../common/model';
import { maxTypeLength } from '../schema/graph';
import { constraintName } from '../schema/names';
import { type Ddl, ddl, ident, keyword, literal } from './ddl';

/**
 * The edge table of a graph (doc 3, Edge): `{table}_edges` beside the node table, its endpoints of the key's type
 * with foreign keys ON DELETE CASCADE (deleting a record deletes its edges), and the three indexes the spec lists.
 */

/** The physical name of a table's edge table (physical table names leave room for the suffix). */
export function edgesTableName(physical: string): string {
  return `${physical}_edges`;
}

/** The statements that create the edge table of `physical`, to run in the transaction that creates or changes it. */
export function planEdgesTable(schemaName: string, physical: string, schema: TableSchema): Ddl[] {
  const edges = edgesTableName(physical);
  const keyName = schema.primaryKey[0] as string;
  const key = schema.fields.find((field) => field.name === keyName);
  if (!key) throw new Error('edge table of a table without its key field');
  const type = keyword(columnType(key));
  const nodes = ddl`${ident(schemaName)}.${ident(physical)} (${ident(keyName)})`;
  const table = ddl`${ident(schemaName)}.${ident(edges)}`;
  const name = (...parts: string[]) => ident(constraintName(edges, ...parts));
  return [
    ddl`CREATE TABLE ${table} (
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      from_id ${type} NOT NULL,
      to_id ${type} NOT NULL,
      type text NOT NULL,
      metadata jsonb NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT ${name('pkey')} PRIMARY KEY (id),
      CONSTRAINT ${name('from_id', 'fkey')} FOREIGN KEY (from_id) REFERENCES ${nodes} ON DELETE CASCADE,
      CONSTRAINT ${name('to_id', 'fkey')} FOREIGN KEY (to_id) REFERENCES ${nodes} ON DELETE CASCADE,
      CONSTRAINT ${name('type', 'check')} CHECK (char_length(type) BETWEEN 1 AND ${literal(maxTypeLength)}::integer)
    )`,
    ddl`CREATE INDEX ${name('from_id', 'type', 'idx')} ON ${table} (from_id, type)`,
    ddl`CREATE INDEX ${name('to_id', 'type', 'idx')} ON ${table} (to_id, type)`,
    ddl`CREATE INDEX ${name('type', 'idx')} ON ${table} (type)`,
  ];
}
