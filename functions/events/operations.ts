import type { App } from '../../shared/accounts/model';
import { created, ok } from '../../shared/api/result';
import { NotFoundError } from '../../shared/errors';
import { createFunction, deleteFunction, getFunction, listFunctions } from '../../shared/events/functions';
import { eventNames } from '../../shared/events/model';
import type { eventRoutes } from '../../shared/events/routes';
import { appSubscriptions, eventOf, subscribe, unsubscribe } from '../../shared/events/subscriptions';
import { appRef, appSubscriberView, functionView, subscriberView, success } from '../../shared/events/views';
import { type RequestContext, siteContext } from '../../shared/http/context';
import { onFirstRequest } from '../../shared/http/lazy-operations';
import type { TypedOperations } from '../../shared/http/typed-operations';
import type { webhookRoutes } from '../../shared/webhooks/routes';

const siteOf = (ctx: Parameters<typeof siteContext>[0]) => siteContext(ctx).access.site.slug;

/** The path's app in the request's site; 404 in the events envelope otherwise. */
function appOf(ctx: RequestContext<unknown, unknown, { app_slug: string }>): App {
  if (!ctx.app)
    throw new NotFoundError({
      message: `No app with the slug "${ctx.params.app_slug}" exists in this site.`,
      code: 'app_not_found',
    });
  return ctx.app;
}

const webhookOperationIds = [
  'createWebhook',
  'listWebhooks',
  'getWebhook',
  'updateWebhook',
  'deleteWebhook',
  'listWebhookDeliveries',
  'replayWebhook',
] as const;

/** The functions registry and event subscriptions (docs/events.md); webhooks' code loads on their first request. */
export const eventOperations = {
  ...onFirstRequest(
    webhookOperationIds,
    async () => (await import('./webhook-operations')).webhookOperations,
  ),
  createFunction: async (ctx) => {
    const fn = await createFunction(ctx.deps, appOf(ctx), ctx.body);
    return created(success('Function registered successfully', functionView(fn)));
  },
  listFunctions: async (ctx) => {
    const functions = (await listFunctions(ctx.deps.store, appOf(ctx))).map(functionView);
    return ok(success('Functions retrieved successfully', { functions, total: functions.length }));
  },
  getFunction: async (ctx) => {
    const fn = await getFunction(ctx.deps.store, appOf(ctx), ctx.params.function_id);
    return ok(success('Function retrieved successfully', functionView(fn)));
  },
  deleteFunction: async (ctx) => {
    await deleteFunction(ctx.deps.store, appOf(ctx), ctx.params.function_id);
    return ok(success('Function deleted successfully', {}));
  },
  listEvents: async () => ok(success('Events retrieved successfully', { events: [...eventNames] })),
  subscribe: async (ctx) => {
    const event = eventOf(ctx.params.event_name);
    const subscription = await subscribe(ctx.deps, siteOf(ctx), event, ctx.body.function_id);
    return ok(success(`Subscribed to ${event} successfully`, subscriberView(subscription)));
  },
  unsubscribe: async (ctx) => {
    const event = eventOf(ctx.params.event_name);
    await unsubscribe(ctx.deps.store, siteOf(ctx), event, ctx.body.function_id);
    return ok(success(`Unsubscribed from ${event} successfully`, {}));
  },
  appEventSubscribers: async (ctx) => {
    const event = eventOf(ctx.params.event_name);
    const app = appOf(ctx);
    const subscribers = (await appSubscriptions(ctx.deps.store, app, event)).map(appSubscriberView);
    return ok(
      success('Subscribers retrieved successfully', {
        event,
        app: appRef(app),
        total_subscribers: subscribers.length,
        subscribers,
      }),
    );
  },
} satisfies TypedOperations<typeof eventRoutes | typeof webhookRoutes>;
