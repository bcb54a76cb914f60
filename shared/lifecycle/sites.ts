import { DeleteCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';

import { keys } from '../accounts/keys';
import type { Site } from '../accounts/model';
import { apiKeyKeys } from '../api-keys/model';
import { iso } from '../clock';
import { siteSchemaName } from '../data/schema/names';
import { ddl, ident, runDdl } from '../data/tables/ddl';
import { NotFoundError } from '../errors';
import { eventKeys } from '../events/keys';
import { roleKeys } from '../roles/keys';
import { secretKeys } from '../secrets/keys';
import { socialKeys } from '../social/model';
import {
  type Budget,
  type LifecycleDeps,
  type NameKey,
  queryItems,
  removeAll,
  runsSql,
  spend,
  untilNameTaken,
} from './budget';
import { deletionKeys } from './keys';

/**
 * Deleting a site (docs/lifecycle.md). One transaction removes the site (so every request naming it is 404 from then
 * on), its organization's site counter (recounted on the next create) and writes the tombstone. The cleanup drops
 * the site's PostgreSQL schema (every app's tables, the catalog) and its registry row, then removes every DynamoDB
 * partition of the site: role memberships, roles, secret history, secrets, types, tags, functions, subscriptions,
 * provider links, API keys' hash and last-use items, app ids, and last the site's own partition (permissions,
 * apps, social apps, API keys), which is how the
 * earlier steps find their keys. A new site may take the slug once the cleanup is done: a create of that slug
 * finishes it first.
 */

export interface SiteTombstone {
  kind: 'site';
  site: string;
  site_id: number;
  site_identity: string;
  organization: string;
  deleted_by: number;
  at: string;
}

/** The tombstone's transaction items: the site, the organization's counter, the tombstone. */
export function siteDeletionItems(table: string, site: Site, tomb: SiteTombstone) {
  return [
    {
      Delete: {
        TableName: table,
        Key: keys.site(site.slug),
        ConditionExpression: 'id = :id',
        ExpressionAttributeValues: { ':id': site.id },
      },
    },
    { Delete: { TableName: table, Key: keys.organizationSites(site.organization_slug) } },
    { Put: { TableName: table, Item: { ...deletionKeys.site(site.slug, site.id), ...tomb } } },
  ];
}

export function siteTombstone(deps: LifecycleDeps, site: Site, by: number): SiteTombstone {
  return {
    kind: 'site',
    site: site.slug,
    site_id: site.id,
    site_identity: site.created_at,
    organization: site.organization_slug,
    deleted_by: by,
    at: iso(deps.clock()),
  };
}

export async function markSiteDeleted(deps: LifecycleDeps, site: Site, by: number): Promise<SiteTombstone> {
  const tomb = siteTombstone(deps, site, by);
  try {
    await deps.store.doc.send(
      new TransactWriteCommand({ TransactItems: siteDeletionItems(deps.store.table, site, tomb) }),
    );
  } catch (error) {
    if (String((error as Error)?.name) === 'TransactionCanceledException') throw new NotFoundError();
    throw error;
  }
  return tomb;
}

/**
 * Drops the site's schema and registry row, unless they belong to another site of the same slug. True when it
 * dropped something (a step of the budget); false when nothing of the site is left there.
 */
async function dropSiteSchema(deps: LifecycleDeps, tomb: SiteTombstone): Promise<boolean> {
  return (await deps.sql().begin(async (tx) => {
    const [registered] = await tx<{ site_identity: string | null }[]>`SELECT site_identity
      FROM platform.data_site_schemas WHERE site = ${tomb.site} FOR UPDATE`;
    if (!registered) return false;
    if (registered.site_identity !== null && registered.site_identity !== tomb.site_identity) return false;
    await runDdl(tx, ddl`DROP SCHEMA IF EXISTS ${ident(siteSchemaName(tomb.site))} CASCADE`);
    await tx`DELETE FROM platform.data_site_schemas WHERE site = ${tomb.site}`;
    return true;
  })) as boolean;
}

type Item = { PK: string; SK: string } & Record<string, unknown>;

const partition = (deps: LifecycleDeps, pk: string, prefix = '') =>
  queryItems(deps.store, {
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix },
    ConsistentRead: true,
  });

export function cleanUpSite(deps: LifecycleDeps, tomb: SiteTombstone, budget: Budget): Promise<boolean> {
  const name = keys.site(tomb.site);
  return untilNameTaken(deps, name, deletionKeys.site(tomb.site, tomb.site_id), () =>
    cleanUpSiteItems(deps, tomb, budget, name),
  );
}

/** The site's cleanup, every write made only while no new site has the slug (`name`, docs/lifecycle.md). */
async function cleanUpSiteItems(
  deps: LifecycleDeps,
  tomb: SiteTombstone,
  budget: Budget,
  name: NameKey,
): Promise<boolean> {
  const site = tomb.site;
  if (budget.left <= 0) return false;
  // The schema first; without the data plane here, the whole cleanup is the sweeper's.
  if (!runsSql(deps)) return false;
  if (await dropSiteSchema(deps, tomb)) spend(budget, 1);
  // Role memberships (by the catalog's roles and tombstones), then the catalog.
  const catalog = await partition(deps, roleKeys.catalog(site));
  for (const entry of catalog) {
    const slug = typeof entry.slug === 'string' ? entry.slug : undefined;
    if (slug && !(await removeAll(deps, await partition(deps, roleKeys.members(site, slug)), budget, name)))
      return false;
  }
  if (!(await removeAll(deps, catalog, budget, name))) return false;
  // Secret history (by the secrets' keys), then secrets, types and tags.
  const secrets = await partition(deps, secretKeys.secrets(site));
  for (const secret of secrets) {
    const history = await partition(
      deps,
      secretKeys.history(site, (secret.app as string | null) ?? null, String(secret.key)),
    );
    if (!(await removeAll(deps, history, budget, name))) return false;
  }
  for (const pk of [secretKeys.secrets(site), secretKeys.types(site), secretKeys.tags(site)])
    if (!(await removeAll(deps, await partition(deps, pk), budget, name))) return false;
  for (const pk of [eventKeys.functions(site), eventKeys.subscriptions(site)])
    if (!(await removeAll(deps, await partition(deps, pk), budget, name))) return false;
  // Provider links of the site's social apps, with each user's side and marker.
  const own = await partition(deps, `SITE#${site}`);
  for (const app of own.filter((item) => item.SK.startsWith(socialKeys.appPrefix))) {
    const providerKey = String(app.provider_id || app.provider);
    const links = await partition(deps, socialKeys.identityPartition(site, providerKey));
    for (const link of links) {
      if (budget.left <= 0) return false;
      const userId = Number(link.user_id);
      const subject = link.SK.slice('SUB#'.length);
      const sides: Item[] = [
        socialKeys.unverifiedLink(userId, site, providerKey, subject),
        ...(link.link_id !== undefined ? [socialKeys.account(userId, Number(link.link_id))] : []),
        { PK: link.PK, SK: link.SK },
      ];
      if (!(await removeAll(deps, sides, budget, name))) return false;
    }
  }
  // API keys: each one's hash and last-use items (its entry goes with the site's own partition).
  const apiKeys = own
    .filter((item) => item.SK.startsWith(apiKeyKeys.sitePrefix))
    .flatMap((key) => [apiKeyKeys.byHash(String(key.hash)), apiKeyKeys.lastUse(String(key.id))]);
  if (!(await removeAll(deps, apiKeys, budget, name))) return false;
  // App ids, then the site's own partition (permissions, apps, social apps) and any app tombstones of the site.
  const appIds = own.filter((item) => item.SK.startsWith('APP#')).map((app) => keys.appId(Number(app.id)));
  if (!(await removeAll(deps, appIds, budget, name))) return false;
  const pendingApps = await partition(deps, deletionKeys.partition, deletionKeys.appsOf(site));
  if (!(await removeAll(deps, pendingApps, budget, name))) return false;
  if (!(await removeAll(deps, own, budget, name))) return false;
  await deps.store.doc.send(
    new DeleteCommand({ TableName: deps.store.table, Key: deletionKeys.site(site, tomb.site_id) }),
  );
  return true;
}
