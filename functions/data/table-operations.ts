import { created, noContent, ok } from '../../shared/api/result';
import type { FieldDef } from '../../shared/data/common/model';
import type { dataRoutes } from '../../shared/data/routes';
import {
  addField,
  addIndex,
  changeTable,
  createTable,
  dropField,
  dropIndex,
  dropTable,
  getTable,
  listTableViews,
  type NewTable,
  type TableChanges,
} from '../../shared/data/tables/management';
import type { TypedOperations } from '../../shared/http/typed-operations';
import { tableAccess, tableName } from './access';

/** Table schema management (doc 3; docs/data-tables.md): loaded on the first such request (operations.ts). */
export const tableOperations = {
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
    return ok({ data: await changeTable(sql, scope, tableName(ctx), ctx.body as TableChanges) });
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
} satisfies Partial<TypedOperations<typeof dataRoutes>>;
