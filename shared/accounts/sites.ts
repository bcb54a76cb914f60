import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { iso } from '../clock';
import { ConflictError, PermissionDeniedError } from '../errors';
import { slugify } from '../slug';
import { nextId, queryAll, type Store, strip } from '../store/store';
import { onConditionFailure, putNew } from '../store/writes';
import { gsi, keys } from './keys';
import type { Organization, Site, SitePermission, SitePermissionGrant, User } from './model';
import { concurrentChanges, ensureCounter, hasRoom, type Quota, sendCounted, takeOne } from './quotas';
import type { AccountsDeps } from './users';

/**
 * Creates a site (tenant) of an organization; the slug is unique platform-wide because hosts carry it. An
 * organization has at most `limit` sites (SITES_PER_ORGANIZATION), unless the caller is a superuser: a refusal is
 * a 403.
 */
export async function createSite(
  deps: AccountsDeps,
  organization: Organization,
  input: { name: string; slug?: string | undefined },
  caller: Pick<User, 'is_superuser'>,
  limit: number,
): Promise<Site> {
  const quota: Quota = { key: keys.organizationSites(organization.slug), limit, exempt: caller.is_superuser };
  const quotaExceeded = () =>
    new PermissionDeniedError({
      code: 'site_quota',
      message: `This organization has reached the limit of ${limit} sites.`,
    });
  const count = await ensureCounter(
    deps.store,
    quota.key,
    async () => (await listOrganizationSites(deps.store, organization.slug)).length,
  );
  if (!hasRoom(quota, count)) throw quotaExceeded();
  const slug = input.slug ?? slugify(input.name);
  const site: Site = {
    id: await nextId(deps.store, 'site'),
    slug,
    name: input.name,
    organization_id: organization.id,
    organization_slug: organization.slug,
    created_at: iso(deps.clock()),
    ...(organization.require_mfa === true ? { require_mfa: true } : {}),
  };
  await onConditionFailure(
    sendCounted(deps.store, [
      putNew(deps.store.table, {
        ...keys.site(slug),
        GSI1PK: gsi.organizationSites(organization.slug),
        GSI1SK: `SITE#${slug}`,
        ...site,
      }),
      takeOne(deps.store.table, quota),
    ]),
    (failed) => {
      if (failed.includes(1)) throw quotaExceeded();
      if (failed.includes(0)) {
        throw new ConflictError({
          code: 'site_exists',
          message: `A site with the slug "${slug}" already exists.`,
        });
      }
      throw concurrentChanges();
    },
  );
  return site;
}

export async function getSite(store: Store, slug: string): Promise<Site | undefined> {
  const result = await store.doc.send(new GetCommand({ TableName: store.table, Key: keys.site(slug) }));
  return result.Item ? strip<Site>(result.Item) : undefined;
}

export async function listOrganizationSites(store: Store, org: string): Promise<Site[]> {
  return queryAll<Site>(store, {
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :pk',
    ExpressionAttributeValues: { ':pk': gsi.organizationSites(org) },
  });
}

/** Replaces a user's permissions on a site; an empty list removes the user's access. */
export async function setSitePermissions(
  deps: AccountsDeps,
  site: string,
  userId: number,
  permissions: readonly SitePermission[],
): Promise<SitePermissionGrant> {
  const grant: SitePermissionGrant = {
    site,
    user_id: userId,
    permissions: [...new Set(permissions)],
    updated_at: iso(deps.clock()),
  };
  await deps.store.doc.send(
    new PutCommand({
      TableName: deps.store.table,
      Item: {
        ...keys.sitePermission(site, userId),
        GSI1PK: gsi.userSitePermissions(userId),
        GSI1SK: `SITE#${site}`,
        ...grant,
      },
    }),
  );
  return grant;
}

export async function listSitePermissions(store: Store, site: string): Promise<SitePermissionGrant[]> {
  return queryAll<SitePermissionGrant>(store, {
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': keys.site(site).PK, ':prefix': 'PERM#' },
  });
}
