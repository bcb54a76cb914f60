import type { App } from '../../shared/accounts/model';
import { created, ok } from '../../shared/api/result';
import { NotFoundError } from '../../shared/errors';
import { success } from '../../shared/events/views';
import { type RequestContext, siteContext } from '../../shared/http/context';
import type { TypedOperations } from '../../shared/http/typed-operations';
import { requireCurrentSchema } from '../../shared/sql/schema-version';
import { deliveryReport, replay } from '../../shared/webhooks/deliveries';
import {
  createEndpoint,
  deleteEndpoint,
  endpointView,
  getEndpoint,
  listEndpoints,
  updateEndpoint,
} from '../../shared/webhooks/endpoints';
import type { webhookRoutes } from '../../shared/webhooks/routes';

type Ctx = RequestContext<unknown, unknown, { app_slug: string }>;

/** The path's app in the request's site, its site, and the data plane (endpoints live beside the outbox). */
async function scopeOf(ctx: Ctx): Promise<{ app: App; site: string; sql: ReturnType<Ctx['deps']['sql']> }> {
  if (!ctx.app)
    throw new NotFoundError({
      message: `No app with the slug "${ctx.params.app_slug}" exists in this site.`,
      code: 'app_not_found',
    });
  const sql = ctx.deps.sql();
  await requireCurrentSchema(sql, ctx.log);
  return { app: ctx.app, site: siteContext(ctx).access.site.slug, sql };
}

/** Webhook endpoints and their deliveries (docs/events.md, "Record events and webhooks"). */
export const webhookOperations = {
  createWebhook: async (ctx) => {
    const { app, site, sql } = await scopeOf(ctx);
    const { row, secret } = await createEndpoint(sql, ctx.deps, site, app, ctx.body);
    return created(success('Webhook registered successfully', { ...endpointView(row), secret }));
  },
  listWebhooks: async (ctx) => {
    const { app, site, sql } = await scopeOf(ctx);
    const webhooks = (await listEndpoints(sql, site, app)).map(endpointView);
    return ok(success('Webhooks retrieved successfully', { webhooks, total: webhooks.length }));
  },
  getWebhook: async (ctx) => {
    const { app, site, sql } = await scopeOf(ctx);
    const row = await getEndpoint(sql, site, app, ctx.params.webhook_id);
    return ok(success('Webhook retrieved successfully', endpointView(row)));
  },
  updateWebhook: async (ctx) => {
    const { app, site, sql } = await scopeOf(ctx);
    const row = await updateEndpoint(sql, ctx.deps, site, app, ctx.params.webhook_id, ctx.body);
    return ok(success('Webhook updated successfully', endpointView(row)));
  },
  deleteWebhook: async (ctx) => {
    const { app, site, sql } = await scopeOf(ctx);
    await deleteEndpoint(sql, site, app, ctx.params.webhook_id);
    return ok(success('Webhook deleted successfully', {}));
  },
  listWebhookDeliveries: async (ctx) => {
    const { app, site, sql } = await scopeOf(ctx);
    const endpoint = await getEndpoint(sql, site, app, ctx.params.webhook_id);
    return ok(
      success('Deliveries retrieved successfully', await deliveryReport(sql, endpoint, ctx.query.status)),
    );
  },
  replayWebhook: async (ctx) => {
    const { app, site, sql } = await scopeOf(ctx);
    const endpoint = await getEndpoint(sql, site, app, ctx.params.webhook_id);
    const replayed = await replay(sql, endpoint, ctx.body);
    return ok(success(`${replayed} event(s) queued for delivery`, { replayed }));
  },
} satisfies TypedOperations<typeof webhookRoutes>;
