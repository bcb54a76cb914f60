import { appNotFound } from '../../shared/data/errors';
import { siteSchemaName } from '../../shared/data/names';
import type { TableScope } from '../../shared/data/table';
import { type RequestContext, siteContext } from '../../shared/http/context';
import type { Sql } from '../../shared/sql/client';
import { migrate } from '../../shared/sql/migrations';

/** A request of the group: the helpers below read only the path parameters. */
export type Ctx = RequestContext<unknown, unknown, Readonly<Record<string, string>>>;

/**
 * The app of the path in the request's site (the pipeline loaded it with the site, and enforced the route's
 * permission): the schema comes from the resolved site only, so no request reaches another site's tables.
 */
function scopeOf(ctx: Ctx): TableScope {
  const { access } = siteContext(ctx);
  if (!ctx.app) throw appNotFound(ctx.params.app_slug ?? '');
  return { schema: siteSchemaName(access.site.slug), site: access.site.slug, app: ctx.app };
}

const migrated = new WeakMap<Sql, Promise<unknown>>();

/**
 * The data-plane client, its migrations applied once per container before first use (idempotent, serialised by
 * an advisory lock): the cloud runs no other migration step, and the local runtime's start already ran them.
 */
async function dataPlane(ctx: Ctx): Promise<Sql> {
  const sql = ctx.deps.sql();
  let ready = migrated.get(sql);
  if (!ready) {
    ready = migrate(sql);
    migrated.set(sql, ready);
    ready.catch(() => migrated.delete(sql));
  }
  await ready;
  return sql;
}

/** The authorized app scope of a data request and the migrated data-plane client. */
export async function tableAccess(ctx: Ctx): Promise<{ scope: TableScope; sql: Sql }> {
  return { scope: scopeOf(ctx), sql: await dataPlane(ctx) };
}

export const tableName = (ctx: Ctx) => ctx.params.name ?? '';
