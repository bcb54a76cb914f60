import type { AggregationPlan } from '../../shared/data/aggregation';
import { aggregationOf } from '../../shared/data/aggregation';
import { appNotFound } from '../../shared/data/errors';
import type { FieldDef } from '../../shared/data/model';
import { siteSchemaName } from '../../shared/data/names';
import { windowOf } from '../../shared/data/paging';
import { populateOf } from '../../shared/data/populate';
import { filtersFromObject, filtersFromQuery, visibilityOf } from '../../shared/data/query';
import { aggregateRecords } from '../../shared/data/record-aggregates';
import {
  deleteByKeys,
  deleteMatching,
  deleteRecord,
  updateMatching,
  updateRecord,
  updateRecordsByKey,
} from '../../shared/data/record-changes';
import { listPlanOf, listResponse } from '../../shared/data/record-list';
import { getRecord, listParameter, listRecords } from '../../shared/data/record-reads';
import { createRecords, upsertRecords } from '../../shared/data/record-writes';
import type { dataRoutes } from '../../shared/data/routes';
import type { DataTable, TableScope } from '../../shared/data/table';
import {
  addField,
  addIndex,
  createTable,
  describeTable,
  dropField,
  dropIndex,
  dropTable,
  getTable,
  listTableViews,
  type NewTable,
} from '../../shared/data/tables';
import { ValidationError } from '../../shared/errors';
import { jsonDepth, maxJsonDepth } from '../../shared/http/body';
import {
  created,
  noContent,
  type Operations,
  ok,
  type RequestContext,
  siteContext,
} from '../../shared/http/context';
import type { TypedOperations } from '../../shared/http/typed-operations';
import type { Sql } from '../../shared/sql/client';
import { requireCurrentSchema } from '../../shared/sql/schema-version';

/** A request of the group: the helpers below read only the path parameters. */
type Ctx = RequestContext<unknown, unknown, Readonly<Record<string, string>>>;

/**
 * The app of the path in the request's site (the pipeline loaded it with the site, and enforced the route's
 * permission): the schema comes from the resolved site only, so no request reaches another site's tables.
 */
function scopeOf(ctx: Ctx): TableScope {
  const { access } = siteContext(ctx);
  if (!ctx.app) throw appNotFound(ctx.params.app_slug ?? '');
  return { schema: siteSchemaName(access.site.slug), site: access.site.slug, app: ctx.app };
}

/**
 * The data-plane client, once the database is known to have this code's schema (one SELECT per container): the
 * migrations run at deploy time (functions/migrate) or at the local runtime's start, never in a request.
 */
async function dataPlane(ctx: Ctx): Promise<Sql> {
  const sql = ctx.deps.sql();
  await requireCurrentSchema(sql, ctx.log);
  return sql;
}

/** The authorized app scope of a data request and the data-plane client. */
async function tableAccess(ctx: Ctx): Promise<{ scope: TableScope; sql: Sql }> {
  return { scope: scopeOf(ctx), sql: await dataPlane(ctx) };
}

const tableName = (ctx: Ctx) => ctx.params.name ?? '';

function parseFilter(text: string): unknown {
  if (jsonDepth(text, maxJsonDepth) > maxJsonDepth)
    throw ValidationError.field('filter', `Nested deeper than ${maxJsonDepth} levels.`);
  try {
    return JSON.parse(text);
  } catch {
    throw ValidationError.field('filter', 'Must be a JSON object of field conditions.');
  }
}

export const dataOperations: Operations = {
  async listDataTables(ctx) {
    const { scope, sql } = await tableAccess(ctx);
    const tables = await listTableViews(sql, scope);
    return ok({ data: tables, total: tables.length });
  },

  async createDataTable(ctx) {
    const { scope, sql } = await tableAccess(ctx);
    // The route's schema leaves field types open so that the table-schema check can name the field it refuses.
    return created({ data: await createTable(sql, scope, ctx.body as NewTable) });
  },

  async getDataTable(ctx) {
    const { scope, sql } = await tableAccess(ctx);
    return ok({ data: await getTable(sql, scope, tableName(ctx)) });
  },

  async updateDataTable(ctx) {
    const { scope, sql } = await tableAccess(ctx);
    return ok({ data: await describeTable(sql, scope, tableName(ctx), ctx.body.description) });
  },

  async dropDataTable(ctx) {
    const { scope, sql } = await tableAccess(ctx);
    await dropTable(sql, scope, tableName(ctx));
    return noContent();
  },

  async addDataTableField(ctx) {
    const { scope, sql } = await tableAccess(ctx);
    // As for tables: the field's type is checked, with its name in the message, by the table-schema check.
    return created({ data: await addField(sql, scope, tableName(ctx), ctx.body as FieldDef) });
  },

  async dropDataTableField(ctx) {
    const { scope, sql } = await tableAccess(ctx);
    return ok({ data: await dropField(sql, scope, tableName(ctx), ctx.params.field ?? '') });
  },

  async addDataTableIndex(ctx) {
    const { scope, sql } = await tableAccess(ctx);
    return created({ data: await addIndex(sql, scope, tableName(ctx), ctx.body) });
  },

  async dropDataTableIndex(ctx) {
    const { scope, sql } = await tableAccess(ctx);
    return ok({ data: await dropIndex(sql, scope, tableName(ctx), ctx.params.index ?? '') });
  },

  async listRecords(ctx) {
    const { scope, sql } = await tableAccess(ctx);
    const params = ctx.searchParams;
    const window = windowOf(ctx.query);
    const visibility = visibilityOf(ctx.query);
    if (params.has('_aggregate') || params.has('_group_by') || params.has('_having')) {
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
    const id = ctx.params.id ?? '';
    const visibility = visibilityOf(ctx.query);
    const embed = (table: DataTable) => populateOf(table, ctx.searchParams);
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
