import { siteSchemaName } from '../../shared/data/schema/names';
import type { RecordActor, TableScope } from '../../shared/data/tables/data-table';
import { appNotFound } from '../../shared/data/tables/errors';
import { type RequestContext, siteContext } from '../../shared/http/context';
import type { Sql } from '../../shared/sql/client';
import { requireCurrentSchema } from '../../shared/sql/schema-version';

/** A request of the group: the helpers below read only the path parameters. */
export type Ctx = RequestContext<unknown, unknown, Readonly<Record<string, string>>>;

/**
 * The app of the path in the request's site (the pipeline loaded it with the site, and enforced the route's
 * permission): the schema comes from the resolved site only, so no request reaches another site's tables.
 */
function scopeOf(ctx: Ctx): TableScope {
  const { access } = siteContext(ctx);
  if (!ctx.app) throw appNotFound(ctx.params.app_slug ?? '');
  return {
    schema: siteSchemaName(access.site.slug),
    site: access.site.slug,
    siteIdentity: access.site.created_at,
    app: ctx.app,
    log: ctx.log,
    actor: actorOf(ctx),
  };
}

/** Who a change's events name: the signed-in user, or the API key with its creator. */
function actorOf(ctx: Ctx): RecordActor | undefined {
  if (ctx.user) return { type: 'user', id: ctx.user.id, username: ctx.user.username };
  if (ctx.key)
    return {
      type: 'api_key',
      id: ctx.key.id,
      created_by: { id: ctx.key.creator.id, username: ctx.key.creator.username },
    };
  return undefined;
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
export async function tableAccess(ctx: Ctx): Promise<{ scope: TableScope; sql: Sql }> {
  return { scope: scopeOf(ctx), sql: await dataPlane(ctx) };
}

export const tableName = (ctx: Ctx) => ctx.params.name ?? '';
