import { type Fragment, join, type Queryable } from '../common/fragments';
import { systemFields } from '../common/model';
import { from } from '../records/statements';
import { catalogRowOf, catalogRowText, catalogVersionColumn } from '../tables/data-table';
import type { GraphTable } from './edges';

/**
 * The recursive CTEs of graph traversal: one statement per traversal, whatever the number of records it reaches.
 *
 * **Set semantics.** A walk is a `WITH RECURSIVE … UNION` (not `UNION ALL`) over `(root, type, node, depth)`: a row
 * is a record reached at a distance from a starting record, never a path. `UNION` keeps each row once, so a record
 * reached at one depth by many paths is one row, and the walk holds at most `depth + 1` rows per record, start and
 * type (a record may be reached at several depths). The smallest depth of each record is then taken (`DISTINCT ON`):
 * each record is visited once per starting record and type, at its smallest depth. Cycles need no path array: a
 * cycle revisits rows that `UNION` already holds, or goes deeper until the depth bound stops it.
 *
 * **Bounded work.** The walk is read through `LIMIT cap × (depth + 1) + 1`: PostgreSQL evaluates a recursive CTE only
 * as far as its reader pulls rows, so the limit stops the walk itself, not just its output. A walk that reaches the
 * limit has more than `cap` distinct records (at most `depth + 1` rows each), so the limit costs nothing to a walk
 * within the cap. The statement's `graph_counts` says whether any walk overflowed, or visited more than `cap` records
 * together, or (trees and graphs) walked more than `cap` edges; if so it returns one row saying so and no records
 * (the caller answers a 400). `cap` is DATA_SERVICE_GRAPH_MAX_RECORDS (docs/graph.md, How it runs).
 *
 * `down` follows incoming edges (descendants: records whose edge points to the current one), `up` follows outgoing
 * edges (ancestors). A `typed` walk keeps to the type of its first edge (the keys of `include`: each type's
 * relatives under its own label); an untyped one follows any selected type (trees and graphs).
 */

export type Direction = 'down' | 'up';

/** What a statement returns beside the records: `include` nothing more; trees their tree edges; graphs the edges walked. */
export type Output = 'include' | 'tree' | 'graph';

/** Columns of the result beside the record's own: none can be a field name (fields hold no `:`). */
export const walkColumns = {
  /** `node` (a record reached) or `edge` (an edge of a tree or graph); null on the one row of an empty result. */
  kind: 'graph:kind',
  root: 'graph:root',
  type: 'graph:type',
  depth: 'graph:depth',
  node: 'graph:node',
  edge: 'graph:edge',
  from: 'graph:from',
  to: 'graph:to',
  metadata: 'graph:metadata',
  direction: 'graph:direction',
  /** True when the traversal is beyond the cap: the statement then returns this one row and no records. */
  over: 'graph:over',
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

/** The endpoints of an edge in a direction: the one the walk stands on, and the one it goes to. */
function ends(sql: Queryable, direction: Direction): [Fragment, Fragment] {
  return direction === 'down' ? [sql`e.to_id`, sql`e.from_id`] : [sql`e.from_id`, sql`e.to_id`];
}

const bestOf = (walk: Pick<Walk, 'name'>) => `${walk.name}_best`;
const limitedOf = (walk: Pick<Walk, 'name'>) => `${walk.name}_v`;
const edgesOf = (walk: Pick<Walk, 'name'>) => `${walk.name}_edges`;
const stepOf = (walk: Pick<Walk, 'name'>) => `${walk.name}_step`;

/** The most rows a walk within the cap can have: `depth + 1` per record (one per depth at most). */
export function rowLimit(walk: Pick<Walk, 'depth'>, cap: number): number {
  return cap * (walk.depth + 1) + 1;
}

/**
 * The CTEs of one walk: `<name>` (the recursive walk over `(node, root, type, depth)` rows, with `UNION`),
 * `<name>_v` (the walk read through its row limit) and `<name>_best` (each record once per start and type, at its
 * smallest depth).
 */
export function walkCte(sql: Queryable, graph: GraphTable, walk: Walk, cap: number): Fragment {
  const key = sql(graph.table.key.name);
  const nodes = from(sql, graph.table);
  const self = sql(walk.name);
  const [here, next] = ends(sql, walk.direction);
  const types = walk.types as string[];
  const anchor = walk.typed
    ? sql`SELECT n.${key} AS g_node, n.${key} AS g_root, t."graph:t" AS g_type, 0 AS g_depth
        FROM ${nodes} n CROSS JOIN unnest(${types}::text[]) AS t("graph:t") WHERE ${walk.start}`
    : sql`SELECT n.${key} AS g_node, n.${key} AS g_root, NULL::text AS g_type, 0 AS g_depth
        FROM ${nodes} n WHERE ${walk.start}`;
  const sameType = walk.typed ? sql`e.type = w.g_type` : sql`e.type = ANY(${types}::text[])`;
  const through = throughOf(sql, graph, walk, next);
  return sql`${self} AS (
    ${anchor}
    UNION
    SELECT ${next}, w.g_root, w.g_type, w.g_depth + 1
    FROM ${self} w JOIN ${graph.edges} e ON ${here} = w.g_node AND ${sameType}
    ${through}
    WHERE w.g_depth < ${walk.depth}::integer
  ),
  ${sql(limitedOf(walk))} AS (SELECT * FROM ${self} LIMIT ${rowLimit(walk, cap)}::bigint),
  ${sql(bestOf(walk))} AS (
    SELECT DISTINCT ON (g_root, g_type, g_node) g_root, g_type, g_node, g_depth FROM ${sql(limitedOf(walk))}
    ORDER BY g_root, g_type, g_node, g_depth
  )`;
}

/** The visibility join of a walk's step: the record an edge goes to must be visible (none without soft delete). */
function throughOf(sql: Queryable, graph: GraphTable, walk: Walk, next: Fragment): Fragment {
  const key = sql(graph.table.key.name);
  return graph.table.softDelete && !walk.deleted
    ? sql`JOIN ${from(sql, graph.table)} m ON m.${key} = ${next} AND ${visible(sql, graph, 'm', false)}`
    : sql``;
}

/**
 * The edges of an (untyped) walk's output, in two CTEs:
 *
 * - `<name>_step`: every edge walked, at most `cap + 1`: from a record the walk went on from (below the depth bound,
 *   each record once per start at its smallest depth) to a visible record, one edge-index probe per record.
 * - `<name>_edges`: for a graph every edge of the step (each goes to a record the walk reached), for a tree the edges
 *   from a record to one a level further (a record's place in a tree is its smallest depth), at most `cap + 1`.
 *
 * The step is `MATERIALIZED` and joined to the records reached by `(root, record)`: each edge finds at most one
 * record. Written as one join of the records reached, the edges and the records reached again, the planner (which
 * cannot estimate a CTE's rows) may join the records reached with themselves first, on the root (and the depth):
 * every pair of records of one level of a tree, the square of its width, before the first edge is read.
 */
function edgesCte(sql: Queryable, graph: GraphTable, walk: Walk, output: Output, cap: number): Fragment {
  const [here, next] = ends(sql, walk.direction);
  const best = sql(bestOf(walk));
  const step = sql(stepOf(walk));
  const tree = output === 'tree' ? sql`AND x.g_depth = s.g_depth + 1` : sql``;
  return sql`${step} AS MATERIALIZED (
    SELECT h.g_root, h.g_depth, e.id, e.from_id, e.to_id, e.type, e.metadata, ${next} AS g_next
    FROM ${best} h
    JOIN ${graph.edges} e ON ${here} = h.g_node AND e.type = ANY(${walk.types as string[]}::text[])
    ${throughOf(sql, graph, walk, next)}
    WHERE h.g_depth < ${walk.depth}::integer
    LIMIT ${cap + 1}::bigint
  ),
  ${sql(edgesOf(walk))} AS (
    SELECT s.g_root, s.id, s.from_id, s.to_id, s.type, s.metadata, s.g_depth + 1 AS g_depth, s.g_next AS g_node
    FROM ${step} s JOIN ${best} x ON x.g_root = s.g_root AND x.g_node = s.g_next ${tree}
  )`;
}

/**
 * Whether a statement is beyond the cap (any walk at its row limit, more than `cap` records visited by its walks
 * together, or more than `cap` edges walked by the walks of a tree or graph), and the catalog version it read: one
 * row.
 */
function countsCte(
  sql: Queryable,
  graph: GraphTable,
  walks: readonly Walk[],
  withEdges: readonly Walk[],
  cap: number,
): Fragment {
  const total = (parts: Fragment[]) => parts.reduce((sum, part) => sql`${sum} + ${part}`, sql`0`);
  const visits = total(walks.map((walk) => sql`(SELECT count(*) FROM ${sql(bestOf(walk))})`));
  const edges = total(withEdges.map((walk) => sql`(SELECT count(*) FROM ${sql(stepOf(walk))})`));
  const overflows = walks.map(
    (walk) => sql`(SELECT count(*) FROM ${sql(limitedOf(walk))}) >= ${rowLimit(walk, cap)}::bigint`,
  );
  const over = [...overflows, sql`${visits} > ${cap}::bigint`, sql`${edges} > ${cap}::bigint`].reduce(
    (any, condition) => sql`${any} OR ${condition}`,
  );
  const version = sql`(SELECT version FROM ${catalogRowOf(sql, graph.table)})`;
  return sql`graph_counts AS (SELECT ${over} AS over, ${version} AS version)`;
}

/** The record columns of the node table under an alias. */
function columnsOf(sql: Queryable, graph: GraphTable, alias: string): Fragment {
  return join(
    sql,
    graph.table.visible.map((field) => sql`${sql(alias)}.${sql(field.name)}`),
  );
}

/** The node rows of a walk: each record reached (and the start records, at depth 0) with its columns. */
function nodeRows(sql: Queryable, graph: GraphTable, walk: Walk): Fragment {
  const c = walkColumns;
  const key = sql(graph.table.key.name);
  return sql`SELECT 'node' AS ${sql(c.kind)}, ${walk.direction}::text AS ${sql(c.direction)}, w.g_root AS ${sql(c.root)},
      w.g_type AS ${sql(c.type)}, w.g_depth AS ${sql(c.depth)}, w.g_node AS ${sql(c.node)}, NULL AS ${sql(c.edge)},
      NULL AS ${sql(c.from)}, NULL AS ${sql(c.to)}, NULL AS ${sql(c.metadata)}, ${columnsOf(sql, graph, 'n')}
    FROM ${sql(bestOf(walk))} w JOIN ${from(sql, graph.table)} n ON n.${key} = w.g_node`;
}

/** The edge rows of a walk; the record columns are typed nulls (a join that matches nothing). */
function edgeRows(sql: Queryable, graph: GraphTable, walk: Walk): Fragment {
  const c = walkColumns;
  return sql`SELECT 'edge' AS ${sql(c.kind)}, ${walk.direction}::text AS ${sql(c.direction)}, x.g_root AS ${sql(c.root)},
      x.type AS ${sql(c.type)}, x.g_depth AS ${sql(c.depth)}, x.g_node AS ${sql(c.node)}, x.id AS ${sql(c.edge)},
      x.from_id AS ${sql(c.from)}, x.to_id AS ${sql(c.to)}, x.metadata AS ${sql(c.metadata)}, ${columnsOf(sql, graph, 'n')}
    FROM ${sql(edgesOf(walk))} x LEFT JOIN ${from(sql, graph.table)} n ON false`;
}

/**
 * The rows of a tree, with only the columns a tree reads (`trees` in reads.ts): a tree is built from thousands of
 * rows, and each column is a value the driver reads and keeps per row (docs/benchmarks.md, Memory). An edge row
 * (first: it types the union's columns) has its child (`graph:node`, the edge's `from` in a walk down), its parent
 * (`graph:to`) and its type; a node row has the record's columns, its key only in the key's column (`graph:node` is
 * null). No direction (a tree walks down), edge id or metadata (a tree shows neither).
 */
function treeRows(sql: Queryable, graph: GraphTable, walk: Walk): Fragment[] {
  const c = walkColumns;
  const key = sql(graph.table.key.name);
  return [
    sql`SELECT 'edge' AS ${sql(c.kind)}, x.g_root AS ${sql(c.root)}, x.type AS ${sql(c.type)},
      x.g_depth AS ${sql(c.depth)}, x.g_node AS ${sql(c.node)}, x.to_id AS ${sql(c.to)}, ${columnsOf(sql, graph, 'n')}
    FROM ${sql(edgesOf(walk))} x LEFT JOIN ${from(sql, graph.table)} n ON false`,
    sql`SELECT 'node' AS ${sql(c.kind)}, w.g_root AS ${sql(c.root)}, w.g_type AS ${sql(c.type)},
      w.g_depth AS ${sql(c.depth)}, NULL AS ${sql(c.node)}, NULL AS ${sql(c.to)}, ${columnsOf(sql, graph, 'n')}
    FROM ${sql(bestOf(walk))} w JOIN ${from(sql, graph.table)} n ON n.${key} = w.g_node`,
  ];
}

/**
 * The statement's result from its CTEs: one row beyond the cap (`graph:over` true), else the edge rows (first: they
 * type the union's columns) and node rows of each walk, by depth and then key (a tree's node rows have their key in
 * the key's column only: ordered by it after `graph:node`, null on them). An empty traversal (no start record) is one
 * row whose `graph:kind` is null.
 */
function result(sql: Queryable, graph: GraphTable, walks: readonly Walk[], output: Output): Fragment {
  const c = walkColumns;
  const selects =
    output === 'tree'
      ? walks.flatMap((walk) => treeRows(sql, graph, walk))
      : [
          ...(output === 'graph' ? walks.map((walk) => edgeRows(sql, graph, walk)) : []),
          ...walks.map((walk) => nodeRows(sql, graph, walk)),
        ];
  const union = selects.reduce((rows, select) => sql`${rows} UNION ALL ${select}`);
  const key = output === 'tree' ? sql`, r.${sql(graph.table.key.name)}` : sql``;
  return sql`SELECT r.*, k.over AS ${sql(c.over)}, k.version AS ${sql(catalogVersionColumn)}
    FROM graph_counts k LEFT JOIN LATERAL (SELECT * FROM (${union}) AS u WHERE NOT k.over) AS r ON true
    ORDER BY r.${sql(c.kind)}, r.${sql(c.depth)}, r.${sql(c.node)}${key}`;
}

/** One statement for walks in both directions or one: each record once per start (and type), with its depth. */
export function traversal(
  sql: Queryable,
  graph: GraphTable,
  walks: readonly Walk[],
  output: Output,
  cap: number,
): Fragment {
  const withEdges = output === 'include' ? [] : walks;
  const ctes = [
    ...walks.map((walk) => walkCte(sql, graph, walk, cap)),
    ...withEdges.map((walk) => edgesCte(sql, graph, walk, output, cap)),
    countsCte(sql, graph, walks, withEdges, cap),
  ];
  return sql`WITH RECURSIVE ${join(sql, ctes)} ${result(sql, graph, walks, output)}`;
}

/**
 * The tree of a record from its natural roots, in one statement: walk up (any selected type, as far as the server
 * allows) to the records that have no further parent (or where the walk stopped at the server maximum), then down
 * from them. When the walk up finds no such record (the record's ancestors are a cycle), the tree starts at the
 * record itself. Both walks count toward the cap.
 */
export function treeOfRecord(
  sql: Queryable,
  graph: GraphTable,
  start: Fragment,
  options: { types: readonly string[]; depth: number; maxDepth: number; deleted: boolean; cap: number },
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
  const roots = sql`parents_end AS (
    SELECT u.g_node AS g_key FROM up_best u
    WHERE u.g_depth = ${options.maxDepth}::integer OR NOT EXISTS (
      SELECT 1 FROM ${graph.edges} e ${through} WHERE e.from_id = u.g_node AND e.type = ANY(${types}::text[]))),
  roots AS (
    SELECT g_key FROM parents_end
    UNION ALL SELECT u.g_node FROM up_best u WHERE u.g_depth = 0 AND NOT EXISTS (SELECT 1 FROM parents_end))`;
  const down: Walk = {
    name: 'down',
    direction: 'down',
    start: sql`n.${key} IN (SELECT g_key FROM roots)`,
    types,
    depth: options.depth,
    typed: false,
    deleted: options.deleted,
  };
  const ctes = [
    walkCte(sql, graph, up, options.cap),
    roots,
    walkCte(sql, graph, down, options.cap),
    edgesCte(sql, graph, down, 'tree', options.cap),
    countsCte(sql, graph, [up, down], [down], options.cap),
  ];
  return sql`WITH RECURSIVE ${join(sql, ctes)} ${result(sql, graph, [down], 'tree')}`;
}

/** An identifier as PostgreSQL reads it quoted. */
const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The shape of an `include` traversal of one record: what its statement text depends on beside the table. */
export interface IncludeShape {
  directions: readonly Direction[];
  depth: number;
  /** Whether soft-deleted records are walked through and shown. */
  deleted: boolean;
  /** The starting record's own visibility (`whereClause`). */
  visibility: 'live' | 'all' | 'deleted';
  cap: number;
}

/**
 * The text of `include` from one record, built once per table definition and shape and kept beside the definition
 * (a WeakMap on the `DataTable`, which lives as long as the bounded catalog cache holds it; the shapes of one table
 * are bounded: directions, depth up to the server maximum, visibility): the statement `traversal` builds for typed
 * walks with `include` output, written with four parameters, `$1` the catalog entry's id (its version comes back
 * beside the rows), `$2` the record's key, `$3` the relationship types (`text[]`) and `$4` the entry's `updated_at`
 * (`catalogRowText`). A GR2-style read (ancestors of
 * a leaf) then builds no statement fragments; the text names the tenant's own schema and tables, and a definition
 * belongs to one tenant. test/integration/data-graph-traversal.test.ts compares its rows with `traversal`'s.
 */
const includeTexts = new WeakMap<GraphTable['table'], Map<string, string>>();

export function includeOfRecordText(table: GraphTable['table'], shape: IncludeShape): string {
  let texts = includeTexts.get(table);
  if (!texts) {
    texts = new Map();
    includeTexts.set(table, texts);
  }
  const id = `${shape.directions.join(',')}|${shape.depth}|${shape.deleted}|${shape.visibility}|${shape.cap}`;
  const known = texts.get(id);
  if (known) return known;
  const c = walkColumns;
  const schema = quoted(table.schema);
  const nodes = `${schema}.${quoted(table.physical)}`;
  const edges = `${schema}.${quoted(table.entry.layout.edges as string)}`;
  const key = quoted(table.key.name);
  const deletedColumn = quoted(systemFields.isDeleted);
  const start = [`${key} = $2`];
  if (shape.visibility === 'live' && table.softDelete) start.push(`${deletedColumn} = false`);
  if (shape.visibility === 'deleted') start.push(table.softDelete ? `${deletedColumn} = true` : 'false');
  const limit = rowLimit(shape, shape.cap);
  const names = shape.directions;
  const walks = names.map((direction) => {
    const [here, next] = direction === 'down' ? ['e.to_id', 'e.from_id'] : ['e.from_id', 'e.to_id'];
    const through =
      table.softDelete && !shape.deleted
        ? `JOIN ${nodes} m ON m.${key} = ${next} AND m.${deletedColumn} = false`
        : '';
    const self = quoted(direction);
    return `${self} AS (
    SELECT n.${key} AS g_node, n.${key} AS g_root, t."graph:t" AS g_type, 0 AS g_depth
      FROM ${nodes} n CROSS JOIN unnest($3::text[]) AS t("graph:t") WHERE ${start.join(' AND ')}
    UNION
    SELECT ${next}, w.g_root, w.g_type, w.g_depth + 1
    FROM ${self} w JOIN ${edges} e ON ${here} = w.g_node AND e.type = w.g_type
    ${through}
    WHERE w.g_depth < ${shape.depth}::integer
  ),
  ${quoted(`${direction}_v`)} AS (SELECT * FROM ${self} LIMIT ${limit}::bigint),
  ${quoted(`${direction}_best`)} AS (
    SELECT DISTINCT ON (g_root, g_type, g_node) g_root, g_type, g_node, g_depth FROM ${quoted(`${direction}_v`)}
    ORDER BY g_root, g_type, g_node, g_depth
  )`;
  });
  const visits = names
    .map((direction) => `(SELECT count(*) FROM ${quoted(`${direction}_best`)})`)
    .join(' + ');
  const overflows = names.map(
    (direction) => `(SELECT count(*) FROM ${quoted(`${direction}_v`)}) >= ${limit}::bigint`,
  );
  const over = [...overflows, `0 + ${visits} > ${shape.cap}::bigint`].join(' OR ');
  const columns = table.visible.map((field) => `n.${quoted(field.name)}`).join(', ');
  const rows = names.map(
    (direction) => `SELECT 'node' AS ${quoted(c.kind)}, '${direction}'::text AS ${quoted(c.direction)},
      w.g_root AS ${quoted(c.root)}, w.g_type AS ${quoted(c.type)}, w.g_depth AS ${quoted(c.depth)},
      w.g_node AS ${quoted(c.node)}, NULL AS ${quoted(c.edge)}, NULL AS ${quoted(c.from)}, NULL AS ${quoted(c.to)},
      NULL AS ${quoted(c.metadata)}, ${columns}
    FROM ${quoted(`${direction}_best`)} w JOIN ${nodes} n ON n.${key} = w.g_node`,
  );
  const text = `WITH RECURSIVE ${walks.join(',\n  ')},
  graph_counts AS (SELECT ${over} AS over, (SELECT version FROM ${catalogRowText(schema, 4)}) AS version)
  SELECT r.*, k.over AS ${quoted(c.over)}, k.version AS ${quoted(catalogVersionColumn)}
    FROM graph_counts k LEFT JOIN LATERAL (SELECT * FROM (${rows.join(' UNION ALL ')}) AS u WHERE NOT k.over) AS r ON true
    ORDER BY r.${quoted(c.kind)}, r.${quoted(c.depth)}, r.${quoted(c.node)}`;
  texts.set(id, text);
  return text;
}
