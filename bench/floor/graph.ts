import type postgres from 'postgres';

/**
 * The floor of GR1-GR3: the project's recursive CTEs (shared/data/graph/traversal.ts) written out by hand against the
 * same node and edge tables, and the least shaping of their rows into the project's response bodies.
 */

type Row = Record<string, unknown>;
type Send = (status: number, body: unknown) => void;

const maxDepth = 10;

export function graphFloor(sql: postgres.Sql, schema: string, nodesTable: string, edgesTable: string) {
  const nodes = sql`${sql(schema)}.${sql(nodesTable)}`;
  const edges = sql`${sql(schema)}.${sql(edgesTable)}`;
  const columns = sql`n."id", n."name", n."created_at"`;
  const record = (row: Row) => ({
    id: row.id,
    name: row.name,
    created_at: (row.created_at as Date).toISOString(),
  });

  /** One typed walk (include=descendants or ancestors) of one type from one record: the project's statement. */
  function walk(id: string, direction: 'down' | 'up', type: string, depth: number) {
    const [here, next] =
      direction === 'down' ? [sql`e.to_id`, sql`e.from_id`] : [sql`e.from_id`, sql`e.to_id`];
    return sql`WITH RECURSIVE w AS (
        SELECT n."id" AS g_node, t.type AS g_type, 0 AS g_depth, ARRAY[n."id"] AS g_path
        FROM ${nodes} n CROSS JOIN unnest(${[type]}::text[]) AS t(type) WHERE n."id" = ${id}
        UNION ALL
        SELECT ${next}, e.type, w.g_depth + 1, w.g_path || ${next}
        FROM w JOIN ${edges} e ON ${here} = w.g_node AND e.type = w.g_type
        WHERE w.g_depth < ${depth}::integer AND ${next} <> ALL(w.g_path))
      SELECT w.g_type, w.g_depth, w.g_path, ${columns} FROM w JOIN ${nodes} n ON n."id" = w.g_node
      ORDER BY w.g_depth, w.g_path`;
  }

  async function include(id: string, direction: 'down' | 'up', label: string, send: Send) {
    const rows = await walk(id, direction, 'parent', maxDepth);
    const start = rows.find((row) => row.g_depth === 0);
    if (!start) return send(404, { error: 'Record not found' });
    const related = rows
      .filter((row) => row.g_depth > 0)
      .map((row) => ({ ...record(row), _depth: row.g_depth, _relationship_type: row.g_type }));
    send(200, { data: record(start), [label]: related });
  }

  /** format=tree of one record: up to its natural root, then down, in one statement; then the nesting. */
  async function tree(id: string, send: Send) {
    const rows = await sql`WITH RECURSIVE up AS (
        SELECT n."id" AS g_node, 0 AS g_depth, ARRAY[n."id"] AS g_path FROM ${nodes} n WHERE n."id" = ${id}
        UNION ALL
        SELECT e.to_id, u.g_depth + 1, u.g_path || e.to_id FROM up u JOIN ${edges} e
          ON e.from_id = u.g_node AND e.type = ANY(${['parent']}::text[])
        WHERE u.g_depth < ${maxDepth}::integer AND e.to_id <> ALL(u.g_path)),
      roots AS (SELECT DISTINCT u.g_node AS g_key FROM up u WHERE u.g_depth = ${maxDepth}::integer OR NOT EXISTS (
        SELECT 1 FROM ${edges} e WHERE e.from_id = u.g_node AND e.type = ANY(${['parent']}::text[])
          AND e.to_id <> ALL(u.g_path))),
      down AS (
        SELECT n."id" AS g_node, NULL::text AS g_type, 0 AS g_depth, ARRAY[n."id"] AS g_path
        FROM ${nodes} n WHERE n."id" IN (SELECT g_key FROM roots)
        UNION ALL
        SELECT e.from_id, e.type, d.g_depth + 1, d.g_path || e.from_id FROM down d JOIN ${edges} e
          ON e.to_id = d.g_node AND e.type = ANY(${['parent']}::text[])
        WHERE d.g_depth < ${maxDepth}::integer AND e.from_id <> ALL(d.g_path))
      SELECT d.g_type, d.g_depth, d.g_path, ${columns} FROM down d JOIN ${nodes} n ON n."id" = d.g_node
      ORDER BY d.g_depth, d.g_path`;
    const byPath = new Map<string, Row>();
    const roots: Row[] = [];
    for (const row of rows) {
      const path = row.g_path as string[];
      const node: Row = { ...record(row), _depth: row.g_depth };
      if (row.g_depth > 0) node._relationship_type = row.g_type;
      node.children = [];
      byPath.set(path.join('/'), node);
      if (row.g_depth === 0) roots.push(node);
      else (byPath.get(path.slice(0, -1).join('/'))?.children as Row[] | undefined)?.push(node);
    }
    if (roots.length === 0) return send(404, { error: 'Record not found' });
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
