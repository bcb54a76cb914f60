import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { App } from '../accounts/model';
import type { Clock } from '../clock';
import { iso } from '../clock';
import type { Config } from '../config';
import { BadRequestError, NotFoundError } from '../errors';
import { slugify } from '../slug';
import { nextId, queryAll, type Store, strip } from '../store/store';
import { createUnique, onConditionFailure, rethrow, transact } from '../store/writes';
import { eventKeys } from './keys';
import { eventNames, type RegisteredFunction } from './model';
import { checkTarget } from './targets';

/** The functions registry: functions belong to an app of a site (docs/events.md, "Functions"). */

export type RegistryDeps = {
  readonly store: Store;
  readonly clock: Clock;
  readonly config: Config;
};

export interface NewFunction {
  name: string;
  slug?: string | undefined;
  target: string;
}

export const functionNotFound = (id: number | string) =>
  new NotFoundError({ message: `Function ${id} does not exist in this app.`, code: 'function_not_found' });

/** Registers a function in an app after checking its target; the slug is unique within the app. */
export async function createFunction(
  deps: RegistryDeps,
  app: App,
  input: NewFunction,
): Promise<RegisteredFunction> {
  const target = await checkTarget(input.target.trim(), deps.config, app.site);
  const slug = input.slug ?? slugify(input.name);
  const now = iso(deps.clock());
  const fn: RegisteredFunction = {
    id: await nextId(deps.store, 'function'),
    name: input.name,
    slug,
    target,
    app_id: app.id,
    app_slug: app.slug,
    app_name: app.name,
    site: app.site,
    created_at: now,
    updated_at: now,
  };
  await createUnique(deps.store, [
    {
      item: { ...eventKeys.functionSlug(app.site, app.slug, slug), function_id: fn.id },
      taken: () =>
        new BadRequestError({
          code: 'function_exists',
          message: `A function with the slug "${slug}" already exists in this app.`,
        }),
    },
    { item: { ...eventKeys.function(app.site, fn.id), ...fn } },
  ]);
  return fn;
}

/** A function of the site by id, whatever its app; undefined when the site has none with that id. */
export async function getSiteFunction(
  store: Store,
  site: string,
  id: number,
): Promise<RegisteredFunction | undefined> {
  const result = await store.doc.send(
    new GetCommand({ TableName: store.table, Key: eventKeys.function(site, id), ConsistentRead: true }),
  );
  return result.Item ? strip<RegisteredFunction>(result.Item) : undefined;
}

/** A function of the app by id. */
export async function getFunction(store: Store, app: App, id: number): Promise<RegisteredFunction> {
  const fn = await getSiteFunction(store, app.site, id);
  if (!fn || fn.app_id !== app.id) throw functionNotFound(id);
  return fn;
}

/** The app's functions, by id (the site's partition, filtered to the app). */
export async function listFunctions(store: Store, app: App): Promise<RegisteredFunction[]> {
  return queryAll<RegisteredFunction>(store, {
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :fn)',
    FilterExpression: 'app_id = :app',
    ExpressionAttributeValues: { ':pk': eventKeys.functions(app.site), ':fn': 'FN#', ':app': app.id },
  });
}

/** Deletes a function with its slug and its subscriptions, in one transaction. */
export async function deleteFunction(store: Store, app: App, id: number): Promise<void> {
  const fn = await getFunction(store, app, id);
  const subscriptions = eventNames.map((event) => ({
    Delete: { TableName: store.table, Key: eventKeys.subscription(app.site, event, fn.id) },
  }));
  await onConditionFailure(
    transact(store, [
      {
        Delete: {
          TableName: store.table,
          Key: eventKeys.function(app.site, fn.id),
          ConditionExpression: 'attribute_exists(PK)',
        },
      },
      { Delete: { TableName: store.table, Key: eventKeys.functionSlug(app.site, app.slug, fn.slug) } },
      ...subscriptions,
    ]),
    // A parallel delete got there first.
    (failed, error) => rethrow(failed.includes(0) ? functionNotFound(id) : error),
  );
}
