import { ConflictError } from '../../errors';
import type { Sql } from '../../sql/client';
import { qualified } from '../common/fragments';
import type { CatalogEntry, TableLayout, TableSchema } from '../common/model';
import { graphProblems, hasGraph } from '../schema/graph';
import { runDdl } from './ddl';
import { edgesTableName, planEdgesTable } from './edge-table';
import { fail } from './errors';

/** What PATCH of a table changes: its description, and its graph (enabling it creates the edge table). */
export interface TableChanges {
  description?: string;
  hierarchy?: boolean;
  graph?: TableSchema['graph'];
}

/**
 * The definition with the graph of `changes`; types still used by edges may not go (409). A table whose graph
 * becomes enabled gets its edge table in the same transaction; a table whose graph is disabled keeps it.
 */
export async function changeGraph(
  tx: Sql,
  schema: string,
  entry: CatalogEntry,
  changes: TableChanges,
): Promise<{ definition: TableSchema; layout: TableLayout } | undefined> {
  if (changes.hierarchy === undefined && changes.graph === undefined) return undefined;
  const definition: TableSchema = { ...entry.definition };
  if (changes.hierarchy !== undefined) definition.hierarchy = changes.hierarchy;
  if (changes.graph !== undefined) definition.graph = changes.graph;
  const problems = graphProblems(definition);
  if (problems.length > 0) fail(Object.fromEntries(problems.map(([path, message]) => [path, [message]])));
  const layout: TableLayout = { ...entry.layout };
  if (layout.edges) {
    const kept = (definition.graph?.types ?? []).map((type) => type.name);
    const [used] = await tx`SELECT DISTINCT type FROM ${qualified(tx, schema, layout.edges)}
      WHERE type <> ALL(${kept}::text[]) LIMIT 1`;
    if (used)
      throw new ConflictError({
        code: 'relationship_type_in_use',
        message: `Edges of type "${String(used.type)}" exist: delete them before removing the type.`,
        title: 'Relationship type in use',
      });
  } else if (hasGraph(definition)) {
    for (const statement of planEdgesTable(schema, entry.physical_name, definition))
      await runDdl(tx, statement);
    layout.edges = edgesTableName(entry.physical_name);
  }
  return { definition, layout };
}
