import type { GraphTable } from './edges';
import { systemFields } from './model';
import { from } from './record-sql';
import { type Fragment, join, type Queryable } from './sql';
import { catalogVersionColumn } from './table';

/**
 * The recursive CTEs of graph traversal. Each walk is one `WITH RECURSIVE` term: an anchor (the starting records),
 * then edge by edge, with the depth bound and the cycle guard (the path array of the records walked) inside the
 * query, so a traversal is one statement whatever the number of records it reaches.
 *
 * `down` follows incoming edges (descendants: records whose edge points to the current one), `up` follows outgoing
 * edges (ancestors). A `typed` walk keeps to the type of its first edge (the keys of `include`: each type's
 * relatives under its own label); an untyped one follows any selected type (trees and graphs).
 */

export type Direction = 'down' | 'up';

/** Columns of the walk beside the record's own: none can be a field name (fields hold no `:`). */
export const walkColumns = {
  root: 'graph:root',
  type: 'graph:type',
  depth: 'graph:depth',
  path: 'graph:path',
  edge: 'graph:edge',
  from: 'graph:from',
  to: 'graph:to',
  metadata: 'graph:metadata',
  direction: 'graph:direction',
} as const;

export interface Walk {
  name: string;
  direction: Direction;
  /** The starting records: a condition on the node table (alias `n`). */
  start: Fragment;
  types: readonly string[];
  depth: number;
  typed: boolean;
  /** Whether soft-deleted records are walked through and shown (`include_deleted`). */
  deleted: boolean;
}

/** The condition that a node (alias) may be walked: live, unless soft-deleted records are asked for. */
function visible(sql: Queryable, graph: GraphTable, alias: string, deleted: boolean): Fragment {
  if (!graph.table.softDelete || deleted) return sql`true`;
  return sql`${sql(alias)}.${sql(systemFields.isDeleted)} = false`;
}

/** One recursive CTE: `name AS (anchor UNION ALL step)`. */
export function walkCte(sql: Queryable, graph: GraphTable, walk: Walk): Fragment {
  const key = sql(graph.table.key.name);
  const nodes = from(sql, graph.table);
  const self = sql(walk.name);
  const [here, next] =
    walk.direction === 'down' ? [sql`e.to_id`, sql`e.from_id`] : [sql`e.from_id`, sql`e.to_id`];
  const types = walk.types as string[];
  const anchor = walk.typed
    ? sql`SELECT n.${key} AS g_node, n.${key} AS g_root, t."graph:t" AS g_type, 0 AS g_depth, ARRAY[n.${key}] AS g_path,
        NULL::uuid AS g_edge FROM ${nodes} n CROSS JOIN unnest(${types}::text[]) AS t("graph:t") WHERE ${walk.start}`
    : sql`SELECT n.${key} AS g_node, n.${key} AS g_root, NULL::text AS g_type, 0 AS g_depth, ARRAY[n.${key}] AS g_path,
        NULL::uuid AS g_edge FROM ${nodes} n WHERE ${walk.start}`;
  const sameType = walk.typed ? sql`e.type = w.g_type` : sql`e.type = ANY(${types}::text[])`;
  const through =
    graph.table.softDelete && !walk.deleted
      ? sql`JOIN ${nodes} m ON m.${key} = ${next} AND ${visible(sql, graph, 'm', false)}`
      : sql``;
  return sql`${self} AS (
    ${anchor}
    UNION ALL
    SELECT ${next}, w.g_root, e.type, w.g_depth + 1, w.g_path || ${next}, e.id
    FROM ${self} w JOIN ${graph.edges} e ON ${here} = w.g_node AND ${sameType}
    ${through}
    WHERE w.g_depth < ${walk.depth}::integer AND ${next} <> ALL(w.g_path)
  )`;
}

/** The rows of a walk with their records (and their edges, for the graph format). */
export function walkRows(
  sql: Queryable,
  graph: GraphTable,
  walk: Pick<Walk, 'name' | 'direction'>,
  options: { edges: boolean; where?: Fragment },
): Fragment {
  const c = walkColumns;
  const key = sql(graph.table.key.name);
  const edgeColumns = options.edges
    ? sql`, e.from_id AS ${sql(c.from)}, e.to_id AS ${sql(c.to)}, e.metadata AS ${sql(c.metadata)}`
    : sql``;
  const edgeJoin = options.edges ? sql`LEFT JOIN ${graph.edges} e ON e.id = w.g_edge` : sql``;
  const version = sql`(SELECT version FROM ${sql(graph.table.schema)}.catalog WHERE id = ${graph.table.entry.id})`;
  return sql`SELECT ${walk.direction}::text AS ${sql(c.direction)}, w.g_root AS ${sql(c.root)}, w.g_type AS ${sql(c.type)},
      w.g_depth AS ${sql(c.depth)}, w.g_path AS ${sql(c.path)}, w.g_edge AS ${sql(c.edge)}${edgeColumns},
      ${version} AS ${sql(catalogVersionColumn)}, ${columnsOf(sql, graph, 'n')}
    FROM ${sql(walk.name)} w JOIN ${from(sql, graph.table)} n ON n.${key} = w.g_node ${edgeJoin}
    WHERE ${options.where ?? sql`true`}`;
}

/** The record columns of the node table under an alias. */
function columnsOf(sql: Queryable, graph: GraphTable, alias: string): Fragment {
  return join(
    sql,
    graph.table.visible.map((field) => sql`${sql(alias)}.${sql(field.name)}`),
  );
}

/** One statement for walks in both directions or one: the rows of each, the start records once. */
export function traversal(
  sql: Queryable,
  graph: GraphTable,
  walks: readonly Walk[],
  edges: boolean,
): Fragment {
  const ctes = join(
    sql,
    walks.map((walk) => walkCte(sql, graph, walk)),
  );
  const selects = walks.map((walk, index) => {
    // The start records come once: from the first walk, at depth 0 (a typed walk has one per type).
    const first = walk.typed ? sql`w.g_type = ${walk.types[0] as string}` : sql`true`;
    const where = index === 0 ? sql`(w.g_depth > 0 OR ${first})` : sql`w.g_depth > 0`;
    return walkRows(sql, graph, walk, { edges, where });
  });
  const union = selects.reduce((all, select) => sql`${all} UNION ALL ${select}`);
  const c = walkColumns;
  return sql`WITH RECURSIVE ${ctes} SELECT * FROM (${union}) AS r ORDER BY ${sql(c.depth)}, ${sql(c.path)}`;
}

/**
 * The tree of a record from its natural roots, in one statement: walk up (any selected type, as far as the server
 * allows) to the records that have no further parent, then down from them.
 */
export function treeOfRecord(
  sql: Queryable,
  graph: GraphTable,
  start: Fragment,
  options: { types: readonly string[]; depth: number; maxDepth: number; deleted: boolean },
): Fragment {
  const types = options.types as string[];
  const up: Walk = {
    name: 'up',
    direction: 'up',
    start,
    types,
    depth: options.maxDepth,
    typed: false,
    deleted: options.deleted,
  };
  const key = sql(graph.table.key.name);
  const through =
    graph.table.softDelete && !options.deleted
      ? sql`JOIN ${from(sql, graph.table)} m ON m.${key} = e.to_id AND ${visible(sql, graph, 'm', false)}`
      : sql``;
  const roots = sql`roots AS (
    SELECT DISTINCT u.g_node AS g_key FROM up u
    WHERE u.g_depth = ${options.maxDepth}::integer OR NOT EXISTS (
      SELECT 1 FROM ${graph.edges} e ${through}
      WHERE e.from_id = u.g_node AND e.type = ANY(${types}::text[]) AND e.to_id <> ALL(u.g_path)))`;
  const down: Walk = {
    name: 'down',
    direction: 'down',
    start: sql`n.${key} IN (SELECT g_key FROM roots)`,
    types,
    depth: options.depth,
    typed: false,
    deleted: options.deleted,
  };
  const c = walkColumns;
  return sql`WITH RECURSIVE ${walkCte(sql, graph, up)}, ${roots}, ${walkCte(sql, graph, down)}
    SELECT * FROM (${walkRows(sql, graph, down, { edges: false })}) AS r ORDER BY ${sql(c.depth)}, ${sql(c.path)}`;
}
