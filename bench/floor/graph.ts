import type postgres from 'postgres';

/**
 * The floor of GR1-GR3: the project's recursive CTEs (shared/data/graph/traversal.ts) written out by hand against the
 * same node and edge tables, and the least shaping of their rows into the project's response bodies.
 *
 * The statements have the project's shape (since 2026-11-28; before, the floor still ran the path-array walks the
 * project left on 2026-11-25): a `WITH RECURSIVE … UNION` walk over `(node, root, type, depth)` rows, read through its
 * row limit (`_v`), each record once at its smallest depth (`_best`, `DISTINCT ON`), for a tree the walk up, the
 * natural roots, the walk down, the edges walked (`_step`, materialized) and the tree edges among them, the cap
 * checks (`graph_counts`) and one result of edge and node rows ordered by kind, depth and key (a tree's rows with
 * the project's tree columns, `treeRows`: no direction, edge id or metadata, a node's key once). What the floor leaves
 * out: the catalog version the project's statement reads beside the counts (for its schema-change retry), and
 * everything outside the statement (authentication, catalog, parameters). The shaping is the project's: relatives by
 * depth then key; a tree hangs each edge's record under its parent, children under the first occurrence only.
 */

type Row = Record<string, unknown>;
type Send = (status: number, body: unknown) => void;

const maxDepth = 10;
/** DATA_SERVICE_GRAPH_MAX_RECORDS, the project's default. */
const cap = 10_000;
const rowLimit = (depth: number) => cap * (depth + 1) + 1;

export function graphFloor(sql: postgres.Sql, schema: string, nodesTable: string, edgesTable: string) {
  const nodes = sql`${sql(schema)}.${sql(nodesTable)}`;
  const edges = sql`${sql(schema)}.${sql(edgesTable)}`;
  const columns = sql`n."id", n."name", n."created_at"`;
  const types = ['parent'];
  const record = (row: Row): Row => ({
    id: row.id,
    name: row.name,
    created_at: (row.created_at as Date).toISOString(),
  });

  /** The CTEs of one walk (`walkCte`): `<name>`, `<name>_v`, `<name>_best`. */
  function walkCtes(
    name: string,
    direction: 'down' | 'up',
    start: postgres.Fragment,
    depth: number,
    typed: boolean,
  ) {
    const [here, next] =
      direction === 'down' ? [sql`e.to_id`, sql`e.from_id`] : [sql`e.from_id`, sql`e.to_id`];
    const self = sql(name);
    const anchor = typed
      ? sql`SELECT n."id" AS g_node, n."id" AS g_root, t."graph:t" AS g_type, 0 AS g_depth
          FROM ${nodes} n CROSS JOIN unnest(${types}::text[]) AS t("graph:t") WHERE ${start}`
      : sql`SELECT n."id" AS g_node, n."id" AS g_root, NULL::text AS g_type, 0 AS g_depth
          FROM ${nodes} n WHERE ${start}`;
    const sameType = typed ? sql`e.type = w.g_type` : sql`e.type = ANY(${types}::text[])`;
    return sql`${self} AS (
        ${anchor}
        UNION
        SELECT ${next}, w.g_root, w.g_type, w.g_depth + 1
        FROM ${self} w JOIN ${edges} e ON ${here} = w.g_node AND ${sameType}
        WHERE w.g_depth < ${depth}::integer),
      ${sql(`${name}_v`)} AS (SELECT * FROM ${self} LIMIT ${rowLimit(depth)}::bigint),
      ${sql(`${name}_best`)} AS (
        SELECT DISTINCT ON (g_root, g_type, g_node) g_root, g_type, g_node, g_depth FROM ${sql(`${name}_v`)}
        ORDER BY g_root, g_type, g_node, g_depth)`;
  }

  /** The node rows of a walk (`nodeRows`). */
  const nodeRows = (name: string, direction: string) =>
    sql`SELECT 'node' AS "graph:kind", ${direction}::text AS "graph:direction", w.g_root AS "graph:root",
        w.g_type AS "graph:type", w.g_depth AS "graph:depth", w.g_node AS "graph:node", NULL AS "graph:edge",
        NULL AS "graph:from", NULL AS "graph:to", NULL AS "graph:metadata", ${columns}
      FROM ${sql(`${name}_best`)} w JOIN ${nodes} n ON n."id" = w.g_node`;

  /** include=descendants or ancestors of one type from one record: the project's statement (`traversal`). */
  function walk(id: string, direction: 'down' | 'up', depth: number) {
    const name = direction;
    return sql`WITH RECURSIVE ${walkCtes(name, direction, sql`n."id" = ${id}`, depth, true)},
      graph_counts AS (SELECT (SELECT count(*) FROM ${sql(`${name}_v`)}) >= ${rowLimit(depth)}::bigint
        OR 0 + (SELECT count(*) FROM ${sql(`${name}_best`)}) > ${cap}::bigint AS over)
      SELECT r.*, k.over AS "graph:over" FROM graph_counts k
        LEFT JOIN LATERAL (SELECT * FROM (${nodeRows(name, direction)}) AS u WHERE NOT k.over) AS r ON true
      ORDER BY r."graph:kind", r."graph:depth", r."graph:node"`;
  }

  async function include(id: string, direction: 'down' | 'up', label: string, send: Send) {
    const rows = await walk(id, direction, maxDepth);
    if (rows[0]?.['graph:over'] === true) return send(400, { error: 'Validation failed' });
    const start = rows.find((row) => row['graph:depth'] === 0);
    if (!start) return send(404, { error: 'Record not found' });
    const related = rows
      .filter((row) => (row['graph:depth'] as number) > 0)
      .map((row) => ({ ...record(row), _depth: row['graph:depth'], _relationship_type: row['graph:type'] }));
    send(200, { data: record(start), [label]: related });
  }

  /** format=tree of one record: the project's statement (`treeOfRecord`), up to its natural roots, then down. */
  function treeStatement(id: string) {
    return sql`WITH RECURSIVE ${walkCtes('up', 'up', sql`n."id" = ${id}`, maxDepth, false)},
      parents_end AS (
        SELECT u.g_node AS g_key FROM up_best u
        WHERE u.g_depth = ${maxDepth}::integer OR NOT EXISTS (
          SELECT 1 FROM ${edges} e WHERE e.from_id = u.g_node AND e.type = ANY(${types}::text[]))),
      roots AS (
        SELECT g_key FROM parents_end
        UNION ALL SELECT u.g_node FROM up_best u WHERE u.g_depth = 0 AND NOT EXISTS (SELECT 1 FROM parents_end)),
      ${walkCtes('down', 'down', sql`n."id" IN (SELECT g_key FROM roots)`, maxDepth, false)},
      down_step AS MATERIALIZED (
        SELECT h.g_root, h.g_depth, e.id, e.from_id, e.to_id, e.type, e.metadata, e.from_id AS g_next
        FROM down_best h JOIN ${edges} e ON e.to_id = h.g_node AND e.type = ANY(${types}::text[])
        WHERE h.g_depth < ${maxDepth}::integer
        LIMIT ${cap + 1}::bigint),
      down_edges AS (
        SELECT s.g_root, s.id, s.from_id, s.to_id, s.type, s.metadata, s.g_depth + 1 AS g_depth, s.g_next AS g_node
        FROM down_step s JOIN down_best x ON x.g_root = s.g_root AND x.g_node = s.g_next AND x.g_depth = s.g_depth + 1),
      graph_counts AS (SELECT (SELECT count(*) FROM up_v) >= ${rowLimit(maxDepth)}::bigint
        OR (SELECT count(*) FROM down_v) >= ${rowLimit(maxDepth)}::bigint
        OR 0 + (SELECT count(*) FROM up_best) + (SELECT count(*) FROM down_best) > ${cap}::bigint
        OR 0 + (SELECT count(*) FROM down_step) > ${cap}::bigint AS over)
      SELECT r.*, k.over AS "graph:over" FROM graph_counts k LEFT JOIN LATERAL (SELECT * FROM (
          SELECT 'edge' AS "graph:kind", x.g_root AS "graph:root", x.type AS "graph:type",
            x.g_depth AS "graph:depth", x.g_node AS "graph:node", x.to_id AS "graph:to", ${columns}
          FROM down_edges x LEFT JOIN ${nodes} n ON false
          UNION ALL SELECT 'node' AS "graph:kind", w.g_root AS "graph:root", w.g_type AS "graph:type",
            w.g_depth AS "graph:depth", NULL AS "graph:node", NULL AS "graph:to", ${columns}
          FROM down_best w JOIN ${nodes} n ON n."id" = w.g_node) AS u WHERE NOT k.over) AS r ON true
      ORDER BY r."graph:kind", r."graph:depth", r."graph:node", r."id"`;
  }

  /** The project's nesting (`trees` in shared/data/graph/reads.ts): breadth first, children under the first occurrence. */
  async function tree(id: string, send: Send) {
    // Read as arrays, as the project reads a tree's rows: the columns by their position in `treeStatement`.
    const rows = (await treeStatement(id).values()) as unknown as unknown[][];
    const [kind, root, type, depth, node, to, key, name, createdAt, over] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
    if (rows[0]?.[over] === true) return send(400, { error: 'Validation failed' });
    const recordOf = (row: unknown[]): Row => ({
      id: row[key],
      name: row[name],
      created_at: (row[createdAt] as Date).toISOString(),
    });
    const walks = new Map<
      unknown,
      { records: Map<unknown, unknown[]>; children: Map<unknown, unknown[][]> }
    >();
    const walkOf = (rootKey: unknown) => {
      let walk = walks.get(rootKey);
      if (!walk) {
        walk = { records: new Map(), children: new Map() };
        walks.set(rootKey, walk);
      }
      return walk;
    };
    const starts: unknown[][] = [];
    for (let index = 0; index < rows.length; index++) {
      const row = rows[index] as unknown[];
      if (row[kind] === 'node') {
        walkOf(row[root]).records.set(row[key], row);
        if (row[depth] === 0) starts.push(row);
      } else if (row[kind] === 'edge') {
        const { children } = walkOf(row[root]);
        const list = children.get(row[to]);
        if (list) list.push(row);
        else children.set(row[to], [row]);
      }
    }
    if (starts.length === 0) return send(404, { error: 'Record not found' });
    const roots = starts.map((start) => {
      const { records, children } = walkOf(start[root]);
      const top: Row = recordOf(start);
      top._depth = 0;
      top.children = [];
      const expanded = new Set([start[key]]);
      const keys: unknown[] = [start[key]];
      const nodes: Row[] = [top];
      for (let index = 0; index < keys.length; index++) {
        const edges = children.get(keys[index]);
        if (!edges) continue;
        const siblings = (nodes[index] as Row).children as Row[];
        for (let at = 0; at < edges.length; at++) {
          const edge = edges[at] as unknown[];
          const child = edge[node];
          const found = records.get(child);
          if (!found) continue;
          const occurrence: Row = recordOf(found);
          occurrence._depth = found[depth];
          occurrence._relationship_type = edge[type];
          occurrence.children = [];
          if (expanded.has(child)) occurrence._repeated = true;
          else {
            expanded.add(child);
            keys.push(child);
            nodes.push(occurrence);
          }
          siblings.push(occurrence);
        }
      }
      return top;
    });
    send(200, { data: roots, total: roots.length });
  }

  /** `/graph/{descendants|ancestors|tree}/{id}`. */
  return async (path: string, send: Send): Promise<void> => {
    const [kind = '', id = ''] = path.slice('/graph/'.length).split('/');
    if (kind === 'descendants') return include(id, 'down', 'kids', send);
    if (kind === 'ancestors') return include(id, 'up', 'parent', send);
    if (kind === 'tree') return tree(id, send);
    send(404, { error: 'Not found' });
  };
}
