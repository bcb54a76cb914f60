import { ValidationError } from '../../errors';
import type { Sql } from '../../sql/client';
import { typeRule } from '../common/field-types';
import type { Fragment } from '../common/fragments';
import { type Visibility, whereClause } from '../query/conditions';
import { populate, type Relationship } from '../records/populate';
import { comparable, keyCondition } from '../records/statements';
import {
  catalogVersionColumn,
  type DataTable,
  keyFromText,
  present,
  type Row,
  readTable,
  type TableScope,
} from '../tables/data-table';
import { recordNotFound } from '../tables/errors';
import { graphOf } from './edges';
import { checkGraphPopulate, treeNodes } from './populate';
import { directions, type GraphRequest, labelOf, labels } from './request';
import {
  type Direction,
  includeOfRecordText,
  type Output,
  traversal,
  treeOfRecord,
  type Walk,
  walkColumns,
} from './traversal';

/**
 * Graph reads (doc 3, Graph query parameters): the relatives of records under the labels of their types
 * (`include`), trees from natural roots (`format=tree`) and node and edge sets (`format=graph`). Each traversal is
 * one statement (traversal.ts); this module shapes its rows.
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

/**
 * A traversal statement: fragments, or a text kept per table definition and its parameters. `values`: its rows are
 * read as arrays (a tree's thousands of rows: an array of its columns costs less than an object of them).
 */
type Statement = ({ fragment: Fragment } | { text: string; params: unknown[] }) & {
  cap: number;
  values?: boolean;
};

/** Where a row holds a column: its name (rows read as objects) or its position (rows read as arrays). */
type At = (column: string) => string | number;
const byName: At = (column) => column;

/**
 * Runs a traversal statement within `readTable` (a schema change meanwhile re-reads the catalog and runs again).
 * Beyond the cap (the statement says so in its one row) it is a 400 naming `depth`.
 */
async function run(
  sql: Sql,
  scope: TableScope,
  name: string,
  statement: (table: DataTable) => Statement,
): Promise<{ table: DataTable; rows: Row[]; at: At }> {
  const read = await readTable(sql, scope, name, async (table) => {
    const built = statement(table);
    const { cap } = built;
    const query =
      'text' in built
        ? sql.unsafe(built.text, built.params as never[], { prepare: sql.options.prepare })
        : sql`${built.fragment}`;
    // The driver's result is an array: used as it is, no copy of thousands of rows.
    const result = built.values ? await query.values() : await query;
    const rows = result as unknown as Row[];
    let at = byName;
    if (built.values) {
      const positions = new Map(result.columns.map((column, index) => [column.name, index]));
      at = (column) => positions.get(column) ?? -1;
    }
    const current = rows.length === 0 || rows[0]?.[at(catalogVersionColumn)] === table.entry.version;
    return { current, value: { table, rows, cap, at } };
  });
  const { at } = read;
  if (read.rows[0]?.[at(c.over)] === true) throw tooManyRecords(read.cap);
  // An empty traversal is its one row whose `graph:kind` is null; any other result has none.
  const empty = read.rows.length === 1 && read.rows[0]?.[at(c.kind)] === null;
  return { table: read.table, rows: empty ? [] : read.rows, at };
}

/** The 400 of a traversal beyond DATA_SERVICE_GRAPH_MAX_RECORDS, naming `depth` (the parameter that widens it most). */
function tooManyRecords(cap: number): ValidationError {
  return ValidationError.field(
    'depth',
    `This traversal reaches more than ${cap} records or edges, the most one request may visit: ask for a smaller depth, fewer relationship types (relationship_type) or fewer starting records (page_size or filters).`,
    'graph_too_large',
  );
}

const nodeRows = (rows: readonly Row[]) => rows.filter((row) => row[c.kind] === 'node');
const edgeRows = (rows: readonly Row[]) => rows.filter((row) => row[c.kind] === 'edge');

const keyText = (table: DataTable, value: unknown) => comparable(table.key, value);

/** A related record: the record, its distance and the type of the edge that reached it. */
function related(table: DataTable, row: Row): Row {
  // `present` returns a new object: the two keys are added to it rather than spread into a copy.
  const record = present(table, row);
  record._depth = Number(row[c.depth]);
  record._relationship_type = row[c.type];
  return record;
}

/**
 * The relatives of each start record under the labels of their types, closest first (then by key); the walk gives
 * each record once per start and type, at its smallest depth. Keyed by the start record's key.
 */
function relativesByRoot(table: DataTable, rows: readonly Row[], request: GraphRequest): Map<string, Row> {
  const walked = directions(request);
  const byRoot = new Map<string, Row>();
  const keysOf = (root: string) => {
    let keys = byRoot.get(root);
    if (!keys) {
      keys = {};
      for (const type of request.types) for (const [, label] of labels(type, walked)) keys[label] = [];
      byRoot.set(root, keys);
    }
    return keys;
  };
  for (const row of nodeRows(rows)) {
    const keys = keysOf(keyText(table, row[c.root]));
    if (Number(row[c.depth]) === 0) continue;
    const type = request.types.find((candidate) => candidate.name === row[c.type]);
    if (!type) continue;
    (keys[labelOf(type, row[c.direction] as Direction)] as Row[]).push(related(table, row));
  }
  return byRoot;
}

/**
 * Trees from a walk's rows, one per start record (depth 0), in the order of the rows. A record hangs under each
 * record one level up that has an edge to it (once per such edge), at its smallest depth; its own children hang
 * under its first occurrence (breadth first, siblings by key), and its other occurrences carry `_repeated: true`
 * and no children. So a tree has at most one node per edge walked, whatever the number of paths.
 *
 * The maps are keyed by the keys as the driver read them: within one result the walk's keys (`graph:root`, an edge
 * row's `graph:node` and `graph:to`) and a node row's key column are columns of the key's type, so one record's key
 * is the same value (a string or a number) wherever it appears, and no canonical text (a new string per lookup for a
 * UUID) is built per row. The rows have a tree's columns (`treeRows` in traversal.ts).
 */
function trees(table: DataTable, rows: readonly Row[], at: At = byName): Row[] {
  const key = at(table.key.name);
  const kind = at(c.kind);
  const root = at(c.root);
  const depth = at(c.depth);
  const node = at(c.node);
  const to = at(c.to);
  const type = at(c.type);
  const fields = table.visible.map((field) => ({
    name: field.name,
    at: at(field.name),
    output: typeRule(field.type).output,
  }));
  // `present` of a row wherever it holds its columns.
  const record = (row: Row): Row => {
    const out: Row = {};
    for (const field of fields) {
      const value = row[field.at];
      out[field.name] = value === null || value === undefined ? null : field.output(value);
    }
    return out;
  };
  // Per start record: its records by key and the edge rows to the children of each (a tree's thousand nodes:
  // indexed loops and the rows themselves, no tuple or object per row).
  const walks = new Map<unknown, { records: Map<unknown, Row>; children: Map<unknown, Row[]> }>();
  const walkOf = (root: unknown) => {
    let walk = walks.get(root);
    if (!walk) {
      walk = { records: new Map(), children: new Map() };
      walks.set(root, walk);
    }
    return walk;
  };
  const starts: Row[] = [];
  for (let index = 0; index < rows.length; index++) {
    const row = rows[index] as Row;
    if (row[kind] === 'node') {
      walkOf(row[root]).records.set(row[key], row);
      if (Number(row[depth]) === 0) starts.push(row);
    } else if (row[kind] === 'edge') {
      // Trees hang descendants: the edge's `to` is the parent, its `from` (the record it reaches, `graph:node`) the
      // child.
      const { children } = walkOf(row[root]);
      const list = children.get(row[to]);
      if (list) list.push(row);
      else children.set(row[to], [row]);
    }
  }
  return starts.map((start) => {
    const { records, children } = walkOf(start[root]);
    const top = record(start);
    top._depth = 0;
    top.children = [];
    const first = start[key];
    const expanded = new Set([first]);
    // The records expanded, breadth first: their keys and their nodes.
    const keys: unknown[] = [first];
    const nodes: Row[] = [top];
    for (let index = 0; index < keys.length; index++) {
      const edges = children.get(keys[index]);
      if (!edges) continue;
      const siblings = (nodes[index] as Row).children as Row[];
      for (let at = 0; at < edges.length; at++) {
        const edge = edges[at] as Row;
        const child = edge[node];
        const found = records.get(child);
        if (!found) continue;
        const occurrence = record(found);
        occurrence._depth = Number(found[depth]);
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
}

/** The node and edge sets of the walk's rows (each record and each edge once). */
export function nodesAndEdges(table: DataTable, rows: readonly Row[]): { nodes: Row[]; edges: Row[] } {
  const key = typeRule(table.key.type).output;
  const nodes = new Map<string, Row>();
  const edges = new Map<string, Row>();
  for (const row of nodeRows(rows)) {
    const node = keyText(table, row[c.node]);
    if (!nodes.has(node)) nodes.set(node, present(table, row));
  }
  for (const row of edgeRows(rows)) {
    const edge = String(row[c.edge]);
    if (!edges.has(edge))
      edges.set(edge, {
        id: edge,
        from: key(row[c.from]),
        to: key(row[c.to]),
        type: row[c.type],
        metadata: row[c.metadata] ?? null,
      });
  }
  return { nodes: [...nodes.values()], edges: [...edges.values()] };
}

/** What a statement returns beside the records, by format. */
function outputOf(request: GraphRequest): Output {
  return request.format ?? 'include';
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
  const { table, rows, at } = await run(sql, scope, name, (table) => {
    const key = keyFromText(table, id);
    if (key === undefined) throw recordNotFound(id);
    asked = request(table);
    embed = relationships(table);
    checkGraphPopulate(embed, asked, false);
    const graph = graphOf(sql, table);
    const types = asked.types.map((type) => type.name);
    const cap = asked.maxRecords;
    if (asked.format === undefined && types.length > 0) {
      // include: the statement's text is kept per table definition and shape (no fragments built per request).
      const shape = {
        directions: directions(asked),
        depth: asked.depth,
        deleted: asked.deleted,
        visibility,
        cap,
      };
      return {
        text: includeOfRecordText(table, shape),
        params: [table.entry.id, key, types, table.entry.updated_at],
        cap,
      };
    }
    const start = whereClause(sql, table, { conditions: [keyCondition(table, key)], visibility });
    // A tree's rows are read as arrays (`trees` reads them by position).
    const values = asked.format === 'tree';
    if (asked.format === 'tree' && asked.depth > 0)
      return { fragment: treeOfRecord(sql, graph, start, { ...asked, types, cap }), cap, values };
    const walks =
      asked.format === 'tree'
        ? walksOf({ ...asked, include: 'descendants' }, start, false)
        : walksOf(asked, start, asked.format !== 'graph');
    return { fragment: traversal(sql, graph, walks, outputOf(asked), cap), cap, values };
  });
  const graphRequest = asked as GraphRequest;
  const kind = at(c.kind);
  if (!rows.some((row) => row[kind] === 'node')) throw recordNotFound(id);
  if (graphRequest.format === 'tree') {
    const data = trees(table, rows, at);
    if (embed.length > 0) await populate(sql, scope, table, treeNodes(data), embed);
    return { data, total: data.length };
  }
  if (graphRequest.format === 'graph') {
    const data = nodesAndEdges(table, rows);
    await populate(sql, scope, table, data.nodes, embed);
    return { data, total: data.nodes.length };
  }
  const start = nodeRows(rows).find((row) => Number(row[c.depth]) === 0) as Row;
  const record = present(table, start);
  const relatives =
    relativesByRoot(table, rows, graphRequest).get(keyText(table, start[table.key.name])) ?? {};
  if (embed.length > 0)
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
    const walks = walksOf(include, start, request.format === undefined);
    const cap = request.maxRecords;
    return { fragment: traversal(sql, graph, walks, outputOf(request), cap), cap };
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
