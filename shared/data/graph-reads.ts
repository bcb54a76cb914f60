import type { Sql } from '../sql/client';
import { graphOf } from './edges';
import { recordNotFound } from './errors';
import { checkGraphPopulate, treeNodes } from './graph-populate';
import { directions, type GraphRequest, labelOf, labels } from './graph-query';
import { type Direction, traversal, treeOfRecord, type Walk, walkColumns } from './graph-sql';
import { populate, type Relationship } from './populate';
import { type Visibility, whereClause } from './query';
import { comparable, keyCondition } from './record-sql';
import type { Fragment } from './sql';
import {
  catalogVersionColumn,
  type DataTable,
  keyFromText,
  present,
  type Row,
  readTable,
  type TableScope,
} from './table';
import { typeRule } from './types';

/**
 * Graph reads (doc 3, Graph query parameters): the relatives of records under the labels of their types
 * (`include`), trees from natural roots (`format=tree`) and node and edge sets (`format=graph`). Each traversal is
 * one statement (graph-sql.ts); this module shapes its rows.
 */

const c = walkColumns;

function walksOf(request: GraphRequest, start: Fragment, typed: boolean): Walk[] {
  const types = request.types.map((type) => type.name);
  return directions(request).map((direction) => ({
    name: direction,
    direction,
    start,
    types,
    depth: request.depth,
    // A typed walk needs a type to start from; with none declared, nothing is reached either way.
    typed: typed && types.length > 0,
    deleted: request.deleted,
  }));
}

/** Runs a traversal statement within `readTable` (a schema change meanwhile re-reads the catalog and runs again). */
async function run(
  sql: Sql,
  scope: TableScope,
  name: string,
  statement: (table: DataTable) => Fragment,
): Promise<{ table: DataTable; rows: Row[] }> {
  return readTable(sql, scope, name, async (table) => {
    const fragment = statement(table);
    const rows = [...(await sql`${fragment}`)] as Row[];
    const current = rows.length === 0 || rows[0]?.[catalogVersionColumn] === table.entry.version;
    return { current, value: { table, rows } };
  });
}

const keyText = (table: DataTable, value: unknown) => comparable(table.key, value);

/** A related record: the record, its distance and the type of the edge that reached it. */
function related(table: DataTable, row: Row): Row {
  return { ...present(table, row), _depth: Number(row[c.depth]), _relationship_type: row[c.type] };
}

/**
 * The relatives of each start record under the labels of their types, closest first; a record reached by several
 * paths shows once per type, at its smallest depth. Keyed by the start record's key.
 */
function relativesByRoot(table: DataTable, rows: readonly Row[], request: GraphRequest): Map<string, Row> {
  const walked = directions(request);
  const byRoot = new Map<string, Row>();
  const seen = new Set<string>();
  const keysOf = (root: string) => {
    let keys = byRoot.get(root);
    if (!keys) {
      keys = {};
      for (const type of request.types) for (const [, label] of labels(type, walked)) keys[label] = [];
      byRoot.set(root, keys);
    }
    return keys;
  };
  for (const row of rows) {
    const root = keyText(table, row[c.root]);
    const keys = keysOf(root);
    if (Number(row[c.depth]) === 0) continue;
    const type = request.types.find((candidate) => candidate.name === row[c.type]);
    if (!type) continue;
    const direction = row[c.direction] as Direction;
    const label = labelOf(type, direction);
    const node = keyText(table, row[table.key.name]);
    const once = `${root}/${direction}/${type.name}/${node}`;
    if (seen.has(once)) continue;
    seen.add(once);
    (keys[label] as Row[]).push(related(table, row));
  }
  return byRoot;
}

/** Trees from the walk's rows (one row per path): each node's children are the rows one edge further. */
function trees(table: DataTable, rows: readonly Row[]): Row[] {
  const byPath = new Map<string, Row>();
  const roots: Row[] = [];
  for (const row of rows) {
    const path = (row[c.path] as unknown[]).map((value) => keyText(table, value));
    const depth = Number(row[c.depth]);
    const node: Row = { ...present(table, row), _depth: depth };
    if (depth > 0) node._relationship_type = row[c.type];
    node.children = [];
    byPath.set(path.join('\u0000'), node);
    if (depth === 0) roots.push(node);
    else (byPath.get(path.slice(0, -1).join('\u0000'))?.children as Row[] | undefined)?.push(node);
  }
  return roots;
}

/** The node and edge sets of the walk's rows. */
export function nodesAndEdges(table: DataTable, rows: readonly Row[]): { nodes: Row[]; edges: Row[] } {
  const key = typeRule(table.key.type).output;
  const nodes = new Map<string, Row>();
  const edges = new Map<string, Row>();
  for (const row of rows) {
    const node = keyText(table, row[table.key.name]);
    if (!nodes.has(node)) nodes.set(node, present(table, row));
    const edge = row[c.edge];
    if (edge !== null && edge !== undefined && !edges.has(String(edge)))
      edges.set(String(edge), {
        id: String(edge),
        from: key(row[c.from]),
        to: key(row[c.to]),
        type: row[c.type],
        metadata: row[c.metadata] ?? null,
      });
  }
  return { nodes: [...nodes.values()], edges: [...edges.values()] };
}

/**
 * GET of one record with graph parameters: `{data, <labels>}`, a tree, or a graph; `relationships` (`populate`)
 * are embedded in every record of it.
 */
export async function recordGraph(
  sql: Sql,
  scope: TableScope,
  name: string,
  id: string,
  visibility: Visibility,
  request: (table: DataTable) => GraphRequest,
  relationships: (table: DataTable) => Relationship[] = () => [],
): Promise<Row> {
  let asked: GraphRequest | undefined;
  let embed: Relationship[] = [];
  const { table, rows } = await run(sql, scope, name, (table) => {
    const key = keyFromText(table, id);
    if (key === undefined) throw recordNotFound(id);
    asked = request(table);
    embed = relationships(table);
    checkGraphPopulate(embed, asked, false);
    const graph = graphOf(sql, table);
    const start = whereClause(sql, table, { conditions: [keyCondition(table, key)], visibility });
    const types = asked.types.map((type) => type.name);
    if (asked.format === 'tree' && asked.depth > 0)
      return treeOfRecord(sql, graph, start, { ...asked, types });
    const walks =
      asked.format === 'tree'
        ? walksOf({ ...asked, include: 'descendants' }, start, false)
        : walksOf(asked, start, asked.format !== 'graph');
    return traversal(sql, graph, walks, asked.format === 'graph');
  });
  const graphRequest = asked as GraphRequest;
  if (rows.length === 0) throw recordNotFound(id);
  if (graphRequest.format === 'tree') {
    const data = trees(table, rows);
    await populate(sql, scope, table, treeNodes(data), embed);
    return { data, total: data.length };
  }
  if (graphRequest.format === 'graph') {
    const data = nodesAndEdges(table, rows);
    await populate(sql, scope, table, data.nodes, embed);
    return { data, total: data.nodes.length };
  }
  const start = rows.find((row) => Number(row[c.depth]) === 0) as Row;
  const record = present(table, start);
  const relatives =
    relativesByRoot(table, rows, graphRequest).get(keyText(table, start[table.key.name])) ?? {};
  await populate(sql, scope, table, [record, ...(Object.values(relatives) as Row[][]).flat()], embed);
  return { data: record, ...relatives };
}

/** The walk rows of the records of a page (their keys), in one statement. */
export async function pageGraph(
  sql: Sql,
  scope: TableScope,
  name: string,
  keys: readonly unknown[],
  request: GraphRequest,
): Promise<{ table: DataTable; rows: Row[] }> {
  return run(sql, scope, name, (table) => {
    const graph = graphOf(sql, table);
    const start = sql`n.${sql(table.key.name)} = ANY(${keys as string[]})`;
    const include = request.format === 'tree' ? { ...request, include: 'descendants' as const } : request;
    return traversal(
      sql,
      graph,
      walksOf(include, start, request.format === undefined),
      request.format === 'graph',
    );
  });
}

/** Embeds each record's relatives in it, under the labels of their types (`include` on a list). */
export function embedRelatives(
  table: DataTable,
  records: Row[],
  rows: readonly Row[],
  request: GraphRequest,
): void {
  const byRoot = relativesByRoot(table, rows, request);
  for (const record of records)
    Object.assign(record, byRoot.get(keyText(table, record[table.key.name])) ?? {});
}

/** The trees of the page's roots, in the page's order. */
export function pageTrees(table: DataTable, records: readonly Row[], rows: readonly Row[]): Row[] {
  const byRoot = new Map(trees(table, rows).map((node) => [keyText(table, node[table.key.name]), node]));
  return records.flatMap((record): Row[] => {
    const node = byRoot.get(keyText(table, record[table.key.name]));
    return node ? [node] : [];
  });
}
