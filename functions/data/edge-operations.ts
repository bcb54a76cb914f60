import { created, ok } from '../../shared/api/result';
import type { edgeRoutes } from '../../shared/data/graph/edge-routes';
import {
  createEdges,
  deleteEdges,
  type EdgeSelection,
  listEdges,
  replaceEdge,
} from '../../shared/data/graph/edges';
import { listParameter } from '../../shared/data/records/reads';
import { ValidationError } from '../../shared/errors';
import type { TypedOperations } from '../../shared/http/typed-operations';
import { tableAccess, tableName } from './access';

/** The edge endpoints of the data group (doc 3, Edge operations; docs/graph.md). */

function selectionOf(query: { from_id?: string; to_id?: string; type?: string }): EdgeSelection {
  const selection: EdgeSelection = {};
  if (query.from_id !== undefined) selection.from_id = query.from_id;
  if (query.to_id !== undefined) selection.to_id = query.to_id;
  if (query.type !== undefined) selection.type = query.type;
  return selection;
}

export const edgeOperations = {
  async listEdges(ctx) {
    const { scope, sql } = await tableAccess(ctx);
    const { page, page_size } = ctx.query;
    const window = { offset: (page - 1) * page_size, limit: page_size };
    const result = await listEdges(sql, scope, tableName(ctx), selectionOf(ctx.query), window);
    return ok({ data: result.edges, total: result.total, page, page_size });
  },

  async createEdges(ctx) {
    const { scope, sql } = await tableAccess(ctx);
    const result = await createEdges(sql, scope, tableName(ctx), ctx.body);
    return created({ data: result.bulk ? result.edges : result.edges[0] });
  },

  async updateEdge(ctx) {
    const { scope, sql } = await tableAccess(ctx);
    return ok({ data: await replaceEdge(sql, scope, tableName(ctx), ctx.params.edge_id, ctx.body) });
  },

  async deleteEdges(ctx) {
    const { scope, sql } = await tableAccess(ctx);
    const selection = selectionOf(ctx.query);
    if (ctx.searchParams.has('ids')) {
      const ids = listParameter(ctx.searchParams, 'ids');
      if (ids.length === 0) throw ValidationError.field('ids', 'Name at least one edge id.');
      if (ids.length > 1000) throw ValidationError.field('ids', 'At most 1000 edge ids per request.');
      selection.ids = ids;
    }
    return ok(await deleteEdges(sql, scope, tableName(ctx), selection));
  },
} satisfies TypedOperations<typeof edgeRoutes>;
