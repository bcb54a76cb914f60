import { jsonDepth, maxJsonDepth } from '../../shared/api/body';
import { created, noContent, ok } from '../../shared/api/result';
import { asksForGraph, checkDepth, graphRequestOf } from '../../shared/data/graph/request';
import type { AggregationPlan } from '../../shared/data/query/aggregation';
import { filtersFromObject, filtersFromQuery, visibilityOf } from '../../shared/data/query/conditions';
import { windowOf } from '../../shared/data/query/paging';
import {
  deleteByKeys,
  deleteMatching,
  deleteRecord,
  updateMatching,
  updateRecord,
  updateRecordsByKey,
} from '../../shared/data/records/changes';
import { listPlanOf, listResponse } from '../../shared/data/records/list';
import { populateOf } from '../../shared/data/records/populate';
import { getRecord, listParameter, listRecords } from '../../shared/data/records/reads';
import { createRecords, upsertRecords } from '../../shared/data/records/writes';
import type { dataRoutes } from '../../shared/data/routes';
import type { DataTable } from '../../shared/data/tables/data-table';
import { ValidationError } from '../../shared/errors';
import type { Operations } from '../../shared/http/context';
import { onFirstRequest } from '../../shared/http/lazy-operations';
import type { TypedOperations } from '../../shared/http/typed-operations';
import { tableAccess, tableName } from './access';

function parseFilter(text: string): unknown {
  if (jsonDepth(text, maxJsonDepth) > maxJsonDepth)
    throw ValidationError.field('filter', `Nested deeper than ${maxJsonDepth} levels.`);
  try {
    return JSON.parse(text);
  } catch {
    throw ValidationError.field('filter', 'Must be a JSON object of field conditions.');
  }
}

/** The table schema management routes: their code (DDL, table-schema checks) loads on the first such request. */
const tableOperationIds = [
  'listDataTables',
  'createDataTable',
  'getDataTable',
  'updateDataTable',
  'dropDataTable',
  'addDataTableField',
  'dropDataTableField',
  'addDataTableIndex',
  'dropDataTableIndex',
] as const;

const edgeOperationIds = ['listEdges', 'createEdges', 'updateEdge', 'deleteEdges'] as const;

export const dataOperations: Operations = {
  ...onFirstRequest(tableOperationIds, async () => (await import('./table-operations')).tableOperations),
  ...onFirstRequest(edgeOperationIds, async () => (await import('./edge-operations')).edgeOperations),
  async listRecords(ctx) {
    const { scope, sql } = await tableAccess(ctx);
    // A depth beyond the server's maximum is refused whatever else the request asks (doc 3, Limits).
    const maxDepth = ctx.deps.config.graphMaxDepth;
    checkDepth(ctx.query, maxDepth);
    const params = ctx.searchParams;
    const window = windowOf(ctx.query);
    const visibility = visibilityOf(ctx.query);
    if (params.has('_aggregate') || params.has('_group_by') || params.has('_having')) {
      // Aggregation's planner and reads load with the first request that aggregates.
      const [{ aggregationOf }, { aggregateRecords }] = await Promise.all([
        import('../../shared/data/query/aggregation'),
        import('../../shared/data/records/aggregates'),
      ]);
      const result = await aggregateRecords(
        sql,
        scope,
        tableName(ctx),
        (table) => ({
          query: { conditions: filtersFromQuery(table, params), visibility },
          aggregation: aggregationOf(table, params) as AggregationPlan,
        }),
        window,
      );
      return ok(result);
    }
    if (asksForGraph(ctx.query)) {
      // The graph's reads load with the first request that asks for them.
      const { listGraph } = await import('../../shared/data/graph/list');
      return listGraph(sql, scope, tableName(ctx), {
        query: ctx.query,
        params,
        visibility,
        window,
        maxDepth,
        maxRecords: ctx.deps.config.graphMaxRecords,
      });
    }
    const result = await listRecords(
      sql,
      scope,
      tableName(ctx),
      (table) => listPlanOf(table, params, visibility),
      window,
    );
    return listResponse(result, window);
  },

  async createRecords(ctx) {
    const { scope, sql } = await tableAccess(ctx);
    const result = await createRecords(sql, scope, tableName(ctx), ctx.body);
    if (result.bulk) return created({ data: result.records });
    return created({ status: 'success', message: 'Record created successfully.', data: result.records[0] });
  },

  async upsertRecords(ctx) {
    const { scope, sql } = await tableAccess(ctx);
    const fields = listParameter(ctx.searchParams, 'unique_fields');
    const result = await upsertRecords(sql, scope, tableName(ctx), fields, ctx.body);
    const status = result.created.some(Boolean) ? 201 : 200;
    if (result.bulk) return { status, body: { data: result.records, created: result.created } };
    return { status, body: { data: result.records[0], created: result.created[0] } };
  },

  async getRecord(ctx) {
    const { scope, sql } = await tableAccess(ctx);
    // A depth beyond the server's maximum is refused whatever else the request asks (doc 3, Limits).
    const maxDepth = ctx.deps.config.graphMaxDepth;
    checkDepth(ctx.query, maxDepth);
    const id = ctx.params.id ?? '';
    const visibility = visibilityOf(ctx.query);
    const embed = (table: DataTable) => populateOf(table, ctx.searchParams);
    if (asksForGraph(ctx.query)) {
      const request = (table: DataTable) =>
        graphRequestOf(table, ctx.query, ctx.searchParams, {
          maxDepth,
          maxRecords: ctx.deps.config.graphMaxRecords,
          visibility,
        });
      const { recordGraph } = await import('../../shared/data/graph/reads');
      return ok(await recordGraph(sql, scope, tableName(ctx), id, visibility, request, embed));
    }
    return ok({ data: await getRecord(sql, scope, tableName(ctx), id, visibility, embed) });
  },

  async updateRecord(ctx) {
    const { scope, sql } = await tableAccess(ctx);
    const id = ctx.params.id ?? '';
    const visibility = visibilityOf(ctx.query);
    return ok({ data: await updateRecord(sql, scope, tableName(ctx), id, ctx.body, visibility) });
  },

  async updateRecords(ctx) {
    const { scope, sql } = await tableAccess(ctx);
    if (Array.isArray(ctx.body))
      return ok({ data: await updateRecordsByKey(sql, scope, tableName(ctx), ctx.body) });
    const result = await updateMatching(
      sql,
      scope,
      tableName(ctx),
      (table) => ({
        conditions: filtersFromQuery(table, ctx.searchParams),
        visibility: visibilityOf(ctx.query),
      }),
      ctx.body,
    );
    return ok({ data: result.records, total: result.total });
  },

  async deleteRecord(ctx) {
    const { scope, sql } = await tableAccess(ctx);
    await deleteRecord(sql, scope, tableName(ctx), ctx.params.id ?? '', ctx.query.hard_delete);
    return noContent();
  },

  async deleteRecords(ctx) {
    const { scope, sql } = await tableAccess(ctx);
    const ids = listParameter(ctx.searchParams, 'ids');
    const filter = ctx.query.filter;
    const hard = ctx.query.hard_delete;
    if (ctx.searchParams.has('ids') && filter !== undefined)
      throw ValidationError.field('non_field_errors', 'Send either ids or filter, not both.');
    if (ctx.searchParams.has('ids')) {
      if (ids.length === 0) throw ValidationError.field('ids', 'Name at least one id.');
      return ok(await deleteByKeys(sql, scope, tableName(ctx), ids, hard));
    }
    if (filter === undefined)
      throw ValidationError.field(
        'non_field_errors',
        'Send ids (comma-separated keys) or filter (a JSON object of field conditions).',
      );
    const conditions = parseFilter(filter);
    return ok(
      await deleteMatching(sql, scope, tableName(ctx), (table) => filtersFromObject(table, conditions), hard),
    );
  },
} satisfies TypedOperations<typeof dataRoutes>;
