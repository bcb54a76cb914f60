import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import type { App } from '../accounts/model';
import { listOrganizationSites } from '../accounts/sites';
import type { CreationScope } from '../accounts/user-creation-events';
import { iso } from '../clock';
import { BadRequestError, NotFoundError } from '../errors';
import { nextId, queryAll, type Store } from '../store/store';
import { createItem, onConditionFailure } from '../store/writes';
import { getSiteFunction, type RegistryDeps } from './functions';
import { eventKeys } from './keys';
import { type EventName, eventNames, isEventName, type Subscription } from './model';

/** Subscriptions of functions to events: each (event, function) pair at most once (docs/events.md). */

/** The event type a path names, or the 400 the spec shows for any other. */
export function eventOf(name: string): EventName {
  if (isEventName(name)) return name;
  throw new BadRequestError({
    code: 'invalid_event',
    message: `Invalid event type "${name}". Valid event types: ${eventNames.join(', ')}.`,
  });
}

const unknownFunction = (id: number) =>
  new BadRequestError({ code: 'function_not_found', message: `Function ${id} does not exist.` });

/**
 * Subscribes a function of the site to an event. The put is conditional on the pair's key, so two parallel
 * subscriptions of the same pair cannot both succeed.
 */
export async function subscribe(
  deps: RegistryDeps,
  site: string,
  event: EventName,
  functionId: number,
): Promise<Subscription> {
  const fn = await getSiteFunction(deps.store, site, functionId);
  if (!fn) throw unknownFunction(functionId);
  const now = iso(deps.clock());
  const subscription: Subscription = {
    id: await nextId(deps.store, 'event_subscriber'),
    event,
    function_id: fn.id,
    function_name: fn.name,
    function_slug: fn.slug,
    target: fn.target,
    app_id: fn.app_id,
    app_name: fn.app_name,
    app_slug: fn.app_slug,
    site,
    created_at: now,
    updated_at: now,
  };
  await createItem(
    deps.store,
    { ...eventKeys.subscription(site, event, fn.id), ...subscription },
    () =>
      new BadRequestError({
        code: 'already_subscribed',
        message: `Function ${fn.id} is already subscribed to ${event}.`,
      }),
  );
  return subscription;
}

/** Removes a subscription; 404 when the pair is not subscribed. */
export async function unsubscribe(
  store: Store,
  site: string,
  event: EventName,
  functionId: number,
): Promise<void> {
  await onConditionFailure(
    store.doc.send(
      new DeleteCommand({
        TableName: store.table,
        Key: eventKeys.subscription(site, event, functionId),
        ConditionExpression: 'attribute_exists(PK)',
      }),
    ),
    () => {
      throw new NotFoundError({
        message: `Function ${functionId} is not subscribed to ${event}.`,
        code: 'subscription_not_found',
      });
    },
  );
}

/**
 * Every subscription of a site to an event, by function id (one query). Each carries the site of the partition it
 * was read from: the site whose target rule it must satisfy before it runs.
 */
export async function siteSubscriptions(
  store: Store,
  site: string,
  event: EventName,
): Promise<Subscription[]> {
  const found = await queryAll<Subscription>(store, {
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: {
      ':pk': eventKeys.subscriptions(site),
      ':prefix': eventKeys.subscriptionPrefix(event),
    },
  });
  return found.map((subscription) => ({ ...subscription, site }));
}

/** The subscriptions of one app to an event. */
export async function appSubscriptions(store: Store, app: App, event: EventName): Promise<Subscription[]> {
  return (await siteSubscriptions(store, app.site, event)).filter((s) => s.app_id === app.id);
}

/**
 * The subscriptions a user creation fires: those of every app of its site, or of every site of its organization
 * (one query per site, in parallel).
 */
export async function subscriptionsFor(
  store: Store,
  scope: CreationScope,
  event: EventName,
): Promise<Subscription[]> {
  const sites =
    'site' in scope
      ? [scope.site]
      : (await listOrganizationSites(store, scope.organization)).map((site) => site.slug);
  return (await Promise.all(sites.map((site) => siteSubscriptions(store, site, event)))).flat();
}
