import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { iso } from '../clock';
import { ConflictError } from '../errors';
import { slugify } from '../slug';
import { nextId, queryAll, type Store, strip } from '../store/store';
import { createUnique } from '../store/writes';
import { keys } from './keys';
import type { App, Site } from './model';
import type { AccountsDeps } from './users';

/** Creates an app in a site; the slug is unique within the site. */
export async function createApp(
  deps: AccountsDeps,
  site: Site,
  input: { name: string; slug?: string | undefined; description?: string | undefined },
): Promise<App> {
  const slug = input.slug ?? slugify(input.name);
  const app: App = {
    id: await nextId(deps.store, 'app'),
    slug,
    name: input.name,
    description: input.description ?? '',
    site: site.slug,
    created_at: iso(deps.clock()),
  };
  await createUnique(
    deps.store,
    [
      {
        item: { ...keys.app(site.slug, slug), ...app },
        taken: () =>
          new ConflictError({
            code: 'app_exists',
            message: `An app with the slug "${slug}" already exists in this site.`,
          }),
      },
    ],
    {
      also: [
        { Put: { TableName: deps.store.table, Item: { ...keys.appId(app.id), site: site.slug, slug } } },
      ],
    },
  );
  return app;
}

export async function getApp(store: Store, site: string, slug: string): Promise<App | undefined> {
  const result = await store.doc.send(new GetCommand({ TableName: store.table, Key: keys.app(site, slug) }));
  return result.Item ? strip<App>(result.Item) : undefined;
}

export async function listApps(store: Store, site: string): Promise<App[]> {
  return queryAll<App>(store, {
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': keys.site(site).PK, ':prefix': 'APP#' },
  });
}
