import type { FieldErrors } from '../../errors';
import { ConflictError, NotFoundError } from '../../errors';
import { newFieldErrors } from '../../field-errors';
import type { Sql } from '../../sql/client';
import { typeRule } from '../common/field-types';
import { type Fragment, join, type Queryable, qualified } from '../common/fragments';
import type { RelationshipType } from '../common/model';
import { systemFields } from '../common/model';
import { comparable, write } from '../records/statements';
import { relationshipTypes } from '../schema/graph';
import { type DataTable, keyFromText, openTable, type Row, type TableScope } from '../tables/data-table';
import { fail, unprocessable } from '../tables/errors';

/**
 * Edges of a table's graph (doc 3, Edge operations): list, create one or many (all or nothing), replace one, delete
 * a selection. Writes lock the node rows of the endpoints whose limits they check (`FOR NO KEY UPDATE`, in key
 * order), so `max_outgoing` and `max_incoming` hold under concurrent requests; see docs/graph.md.
 */

/** An edge as a request states it (the route's schema has checked the shape). */
export interface EdgeInput {
  from_id: string | number;
  to_id: string | number;
  type: string;
  metadata?: Record<string, unknown> | null;
}

/** An edge read back from the table. */
export interface Edge {
  id: string;
  from_id: unknown;
  to_id: unknown;
  type: string;
  metadata: unknown;
  created_at: string;
}

/** The table's graph: the node table and its edge table; 422 when the table has no graph. */
export interface GraphTable {
  table: DataTable;
  edges: Fragment;
  types: Map<string, RelationshipType>;
}

export function graphOf(sql: Queryable, table: DataTable): GraphTable {
  const types = relationshipTypes(table.definition);
  const edges = table.entry.layout.edges;
  if (!edges || (table.definition.hierarchy !== true && table.definition.graph?.enabled !== true))
    throw unprocessable(
      'graph_not_enabled',
      'Graph not enabled',
      `Table "${table.name}" has no graph: set graph.enabled (or hierarchy) to true in its schema.`,
    );
  return {
    table,
    edges: qualified(sql, table.schema, edges),
    types: new Map(types.map((type) => [type.name, type])),
  };
}

const edgeColumns = (sql: Queryable) => sql`id, from_id, to_id, type, metadata, created_at`;

/** An edge row as the API shows it: keys in the node key's JSON form, the time in UTC. */
export function presentEdge(table: DataTable, row: Row): Edge {
  const key = typeRule(table.key.type).output;
  const created = row.created_at;
  return {
    id: String(row.id),
    from_id: key(row.from_id),
    to_id: key(row.to_id),
    type: String(row.type),
    metadata: row.metadata ?? null,
    created_at: created instanceof Date ? created.toISOString() : String(created),
  };
}

export function edgeNotFound(id: string): NotFoundError {
  return new NotFoundError({
    message: `No edge with id "${id}".`,
    code: 'edge_not_found',
    title: 'Edge not found',
  });
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An edge id from text; undefined when it cannot be one (edge ids are UUIDs). */
export function edgeId(text: string): string | undefined {
  return uuidPattern.test(text) ? text.toLowerCase() : undefined;
}

/** A checked edge: its endpoints as key values of the node table. */
interface PlannedEdge {
  from: string | number;
  to: string | number;
  type: RelationshipType;
  metadata: Record<string, unknown> | null;
  at: string;
}

/** Checks the edges of a request against the graph: known type, endpoints that can be keys, no self-loop. */
function planEdges(graph: GraphTable, inputs: readonly EdgeInput[], bulk: boolean): PlannedEdge[] {
  const errors = newFieldErrors();
  const planned: PlannedEdge[] = [];
  inputs.forEach((input, index) => {
    const at = bulk ? `${index}.` : '';
    const type = graph.types.get(input.type);
    if (!type)
      errors[`${at}type`] = [
        `"${input.type}" is not a relationship type of table "${graph.table.name}". Declared: ${[...graph.types.keys()].join(', ') || 'none'}.`,
      ];
    const from = keyFromText(graph.table, String(input.from_id));
    const to = keyFromText(graph.table, String(input.to_id));
    if (from === undefined) errors[`${at}from_id`] = [`"${input.from_id}" cannot be a key of this table.`];
    if (to === undefined) errors[`${at}to_id`] = [`"${input.to_id}" cannot be a key of this table.`];
    if (
      from !== undefined &&
      to !== undefined &&
      comparable(graph.table.key, from) === comparable(graph.table.key, to)
    )
      errors[`${at}to_id`] = ['An edge cannot connect a record to itself.'];
    if (type && from !== undefined && to !== undefined)
      planned.push({ from, to, type, metadata: input.metadata ?? null, at });
  });
  if (Object.keys(errors).length > 0) fail(errors);
  return planned;
}

/**
 * Locks the endpoint records of the edges (in key order, so concurrent requests cannot deadlock) and checks that
 * they exist and are live: until the transaction ends, no other edge write on these records can run its checks.
 */
async function lockEndpoints(
  tx: Queryable,
  graph: GraphTable,
  planned: readonly PlannedEdge[],
): Promise<void> {
  const table = graph.table;
  const keyOf = (value: unknown) => comparable(table.key, value);
  const keys = new Map<string, string | number>();
  for (const edge of planned) {
    keys.set(keyOf(edge.from), edge.from);
    keys.set(keyOf(edge.to), edge.to);
  }
  const key = tx(table.key.name);
  const live = table.softDelete ? tx`AND ${tx(systemFields.isDeleted)} = false` : tx``;
  const rows = await tx`SELECT ${key} AS key FROM ${qualified(tx, table.schema, table.physical)}
    WHERE ${key} = ANY(${[...keys.values()] as string[]}) ${live} ORDER BY ${key} FOR NO KEY UPDATE`;
  const found = new Set(rows.map((row) => keyOf(row.key)));
  const errors: FieldErrors = newFieldErrors();
  for (const edge of planned) {
    for (const [end, value] of [
      ['from_id', edge.from],
      ['to_id', edge.to],
    ] as const)
      if (!found.has(keyOf(value)))
        errors[`${edge.at}${end}`] = [`No "${table.name}" record has id "${String(value)}".`];
  }
  if (Object.keys(errors).length > 0) fail(errors);
}

/** Per (node, type): how many edges leave (`out`) or enter (`in`) it, besides the edge `except`. */
async function edgeCounts(
  tx: Queryable,
  graph: GraphTable,
  planned: readonly PlannedEdge[],
  except: string | null,
): Promise<Map<string, number>> {
  const table = graph.table;
  const counts = new Map<string, number>();
  const limited = planned.filter(
    (edge) => edge.type.constraints?.max_outgoing || edge.type.constraints?.max_incoming,
  );
  if (limited.length === 0) return counts;
  const nodes = [...new Set(limited.flatMap((edge) => [edge.from, edge.to]))] as string[];
  const types = [...new Set(limited.map((edge) => edge.type.name))];
  const other = except ? tx`AND id <> ${except}` : tx``;
  const [outgoing, incoming] = await Promise.all([
    tx`SELECT from_id AS node, type, count(*)::integer AS n FROM ${graph.edges}
      WHERE from_id = ANY(${nodes}) AND type = ANY(${types}::text[]) ${other} GROUP BY from_id, type`,
    tx`SELECT to_id AS node, type, count(*)::integer AS n FROM ${graph.edges}
      WHERE to_id = ANY(${nodes}) AND type = ANY(${types}::text[]) ${other} GROUP BY to_id, type`,
  ]);
  for (const row of outgoing) counts.set(`out/${row.type}/${comparable(table.key, row.node)}`, Number(row.n));
  for (const row of incoming) counts.set(`in/${row.type}/${comparable(table.key, row.node)}`, Number(row.n));
  return counts;
}

/** Refuses edges that would take a node beyond its type's `max_outgoing` or `max_incoming` (422). */
function checkLimits(graph: GraphTable, planned: readonly PlannedEdge[], counts: Map<string, number>): void {
  const key = (value: unknown) => comparable(graph.table.key, value);
  for (const edge of planned) {
    const limits = edge.type.constraints ?? {};
    const checks = [
      ['out', edge.from, limits.max_outgoing, 'leaving'],
      ['in', edge.to, limits.max_incoming, 'entering'],
    ] as const;
    for (const [direction, node, max, verb] of checks) {
      if (max === undefined) continue;
      const slot = `${direction}/${edge.type.name}/${key(node)}`;
      const count = (counts.get(slot) ?? 0) + 1;
      counts.set(slot, count);
      if (count > max)
        throw unprocessable(
          'relationship_limit',
          'Relationship limit reached',
          `Record "${String(node)}" may have at most ${max} "${edge.type.name}" edge${max === 1 ? '' : 's'} ${verb} it (max_${direction === 'out' ? 'outgoing' : 'incoming'}).`,
        );
    }
  }
}

/** Refuses an edge that exists already (same from, to and type), in the table or twice in the request: 409. */
async function checkDuplicates(
  tx: Queryable,
  graph: GraphTable,
  planned: readonly PlannedEdge[],
  except: string | null,
): Promise<void> {
  const key = (value: unknown) => comparable(graph.table.key, value);
  const other = except ? tx`AND id <> ${except}` : tx``;
  const rows = await tx`SELECT from_id, to_id, type FROM ${graph.edges}
    WHERE from_id = ANY(${planned.map((edge) => edge.from) as string[]})
      AND to_id = ANY(${planned.map((edge) => edge.to) as string[]})
      AND type = ANY(${planned.map((edge) => edge.type.name)}::text[]) ${other}`;
  const seen = new Set(rows.map((row) => `${key(row.from_id)}/${key(row.to_id)}/${row.type}`));
  for (const edge of planned) {
    const slot = `${key(edge.from)}/${key(edge.to)}/${edge.type.name}`;
    if (seen.has(slot))
      throw new ConflictError({
        code: 'edge_exists',
        message: `"${String(edge.from)}" already has a "${edge.type.name}" edge to "${String(edge.to)}".`,
        title: 'Edge exists',
      });
    seen.add(slot);
  }
}

/** Everything an edge write checks, under the endpoint locks. */
async function checkEdges(tx: Queryable, graph: GraphTable, planned: PlannedEdge[], except: string | null) {
  await lockEndpoints(tx, graph, planned);
  await checkDuplicates(tx, graph, planned, except);
  checkLimits(graph, planned, await edgeCounts(tx, graph, planned, except));
}

const metadataParam = (tx: Queryable, edge: PlannedEdge) =>
  edge.metadata === null ? null : tx.json(edge.metadata as never);

/** Creates one edge, or several from an array in one transaction (all or nothing). */
export async function createEdges(
  sql: Sql,
  scope: TableScope,
  name: string,
  body: EdgeInput | EdgeInput[],
): Promise<{ edges: Edge[]; bulk: boolean }> {
  const bulk = Array.isArray(body);
  return write(sql, scope, name, 'write', async (tx, table) => {
    const graph = graphOf(tx, table);
    const planned = planEdges(graph, bulk ? body : [body], bulk);
    await checkEdges(tx, graph, planned, null);
    const rows = planned.map((edge) => ({
      from_id: edge.from,
      to_id: edge.to,
      type: edge.type.name,
      metadata: metadataParam(tx, edge),
    }));
    const inserted =
      await tx`INSERT INTO ${graph.edges} ${tx(rows as never, 'from_id', 'to_id', 'type', 'metadata')}
      RETURNING ${edgeColumns(tx)}`;
    return { edges: inserted.map((row) => presentEdge(table, row)), bulk };
  });
}

/** Replaces an edge's endpoints, type and metadata, with the checks of a new edge. */
export async function replaceEdge(
  sql: Sql,
  scope: TableScope,
  name: string,
  id: string,
  body: EdgeInput,
): Promise<Edge> {
  return write(sql, scope, name, 'write', async (tx, table) => {
    const graph = graphOf(tx, table);
    const key = edgeId(id);
    const [current] = key ? await tx`SELECT id FROM ${graph.edges} WHERE id = ${key} FOR UPDATE` : [];
    if (!key || !current) throw edgeNotFound(id);
    const planned = planEdges(graph, [body], false);
    await checkEdges(tx, graph, planned, key);
    const edge = planned[0] as PlannedEdge;
    const [row] = await tx`UPDATE ${graph.edges} SET from_id = ${edge.from}, to_id = ${edge.to},
      type = ${edge.type.name}, metadata = ${metadataParam(tx, edge)} WHERE id = ${key} RETURNING ${edgeColumns(tx)}`;
    return presentEdge(table, row as Row);
  });
}

/** Which edges a list or a delete is about: any of from, to and type (all given must match), or ids. */
export interface EdgeSelection {
  ids?: string[];
  from_id?: string;
  to_id?: string;
  type?: string;
}

function selectionWhere(sql: Queryable, table: DataTable, selection: EdgeSelection): Fragment | undefined {
  const parts: Fragment[] = [];
  if (selection.ids) {
    const ids = selection.ids.map(edgeId);
    if (ids.some((id) => id === undefined)) fail({ ids: ['Edge ids are UUIDs.'] });
    parts.push(sql`id = ANY(${ids as string[]}::uuid[])`);
  }
  for (const end of ['from_id', 'to_id'] as const) {
    const text = selection[end];
    if (text === undefined) continue;
    const value = keyFromText(table, text);
    // A value that cannot be a key matches no edge.
    parts.push(value === undefined ? sql`false` : sql`${sql(end)} = ${value}`);
  }
  if (selection.type !== undefined) parts.push(sql`type = ${selection.type}`);
  return parts.length > 0 ? join(sql, parts, ' AND ') : undefined;
}

/** A page of edges (oldest first) and how many match. */
export async function listEdges(
  sql: Sql,
  scope: TableScope,
  name: string,
  selection: EdgeSelection,
  window: { offset: number; limit: number },
): Promise<{ edges: Edge[]; total: number }> {
  const table = await openTable(sql, scope, name);
  const graph = graphOf(sql, table);
  const where = selectionWhere(sql, table, selection) ?? sql`true`;
  const [counted, rows] = await Promise.all([
    sql`SELECT count(*)::integer AS total FROM ${graph.edges} WHERE ${where}`,
    sql`SELECT ${edgeColumns(sql)} FROM ${graph.edges} WHERE ${where}
      ORDER BY created_at, id LIMIT ${window.limit} OFFSET ${window.offset}`,
  ]);
  return { edges: rows.map((row) => presentEdge(table, row)), total: Number(counted[0]?.total ?? 0) };
}

/** Deletes the selected edges; at least one of ids, from_id, to_id, type is needed (no accidental delete of all). */
export async function deleteEdges(
  sql: Sql,
  scope: TableScope,
  name: string,
  selection: EdgeSelection,
): Promise<{ deleted: number; ids: string[] }> {
  return write(sql, scope, name, 'delete', async (tx, table) => {
    const graph = graphOf(tx, table);
    const where = selectionWhere(tx, table, selection);
    if (!where)
      fail({ non_field_errors: ['Name the edges to delete: ids, or any of from_id, to_id and type.'] });
    const rows = await tx`DELETE FROM ${graph.edges} WHERE ${where} RETURNING id`;
    return { deleted: rows.length, ids: rows.map((row) => String(row.id)) };
  });
}
