import type { HttpResult } from '../../api/result';
import type { Sql } from '../../sql/client';
import type { Fragment, Queryable } from '../common/fragments';
import { systemFields } from '../common/model';
import type { Visibility } from '../query/conditions';
import type { Window } from '../query/paging';
import { listPlanOf, listResponse } from '../records/list';
import { populate, type Relationship } from '../records/populate';
import { listRecords } from '../records/reads';
import { from } from '../records/statements';
import type { DataTable, TableScope } from '../tables/data-table';
import { type GraphTable, graphOf } from './edges';
import { checkGraphPopulate, treeNodes, withRelatives } from './populate';
import { embedRelatives, nodesAndEdges, pageGraph, pageTrees } from './reads';
import { type GraphQuery, type GraphRequest, graphRequestOf, relativeLabels } from './request';

/**
 * The collection with graph parameters (doc 3): the list's filters, visibility, sort and paging choose the
 * starting records; `include` embeds each record's relatives, `format=tree` pages the natural roots among the
 * matching records and hangs their descendants under them, `format=graph` gives the nodes and edges reached.
 */

/** Records with no parent among the selected types (no outgoing edge to a record that can be seen). */
function naturalRoots(sql: Queryable, graph: GraphTable, table: DataTable, request: GraphRequest): Fragment {
  const key = sql(table.key.name);
  const types = request.types.map((type) => type.name);
  const through =
    table.softDelete && !request.deleted
      ? sql`JOIN ${from(sql, table)} m ON m.${key} = e.to_id AND m.${sql(systemFields.isDeleted)} = false`
      : sql``;
  return sql`NOT EXISTS (SELECT 1 FROM ${graph.edges} e ${through}
    WHERE e.from_id = ${from(sql, table)}.${key} AND e.type = ANY(${types}::text[]))`;
}

export interface GraphListOptions {
  query: GraphQuery;
  params: URLSearchParams;
  visibility: Visibility;
  window: Window;
  maxDepth: number;
  maxRecords: number;
}

/** A list with graph parameters: the page (one round trip with its total), then its traversal (one statement). */
export async function listGraph(
  sql: Sql,
  scope: TableScope,
  name: string,
  options: GraphListOptions,
): Promise<HttpResult> {
  let request: GraphRequest | undefined;
  let listed: DataTable | undefined;
  let embed: Relationship[] = [];
  const result = await listRecords(
    sql,
    scope,
    name,
    (table) => {
      listed = table;
      request = graphRequestOf(table, options.query, options.params, options);
      const plan = listPlanOf(table, options.params, options.visibility);
      // `populate` applies to every record of the response, the relatives too: once, after the traversal.
      embed = plan.populate ?? [];
      checkGraphPopulate(embed, request, true);
      plan.populate = [];
      if (request.format === 'tree') plan.where = naturalRoots(sql, graphOf(sql, table), table, request);
      return plan;
    },
    options.window,
  );
  const asked = request as GraphRequest;
  const table = listed as DataTable;
  const keys = result.records.map((record) => record[table.key.name]);
  const rows = keys.length === 0 ? [] : (await pageGraph(sql, scope, name, keys, asked)).rows;
  if (asked.format === 'tree') {
    const data = pageTrees(table, result.records, rows);
    if (embed.length > 0) await populate(sql, scope, table, treeNodes(data), embed);
    return { status: 200, body: { data, total: result.total } };
  }
  if (asked.format === 'graph') {
    const data = nodesAndEdges(table, rows);
    await populate(sql, scope, table, data.nodes, embed);
    return { status: 200, body: { data, total: data.nodes.length } };
  }
  embedRelatives(table, result.records, rows, asked);
  if (embed.length > 0)
    await populate(sql, scope, table, withRelatives(result.records, relativeLabels(asked)), embed);
  return listResponse(result, options.window);
}
