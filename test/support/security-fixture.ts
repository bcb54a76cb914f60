import type { ApiClient } from './client';
import { createTable, dataPath, insert, tablePath } from './data';
import type { TestPlatform } from './platform';
import { createTenant, createUser, grantSite, type Tenant, unique } from './tenant';

/**
 * Two organizations with one site each, every site object a route can name, and one identity per permission and
 * role: the fixture of the route-table generated suites (security matrix and fuzzing).
 */

/** The site permissions of doc 1, one identity each. */
export const sitePermissionNames = [
  'access_site',
  'view_site',
  'change_site',
  'delete_site',
  'manage_site',
  'manage_site_users',
  'admin_site',
] as const;

/** What one site holds: an app, a data table with a record, an app role and a site role. */
export interface SiteObjects {
  tenant: Tenant;
  table: string;
  recordId: string;
  appRole: string;
  siteRole: string;
  /** A private secret type, a tag and a site-level secret of that type with that tag. */
  secretType: string;
  tag: string;
  tagName: string;
  secretKey: string;
}

/** The schema of the fixture's secret type. */
export const secretSchema = {
  type: 'object',
  properties: { token: { type: 'string' } },
  required: ['token'],
};

/** Who calls: an identity of the matrix, and what the expectations are computed from. */
export interface Identity {
  name: string;
  /** Signed in (or anonymous), with requests naming site A. */
  api: ApiClient;
  user: { id: number; username: string } | null;
  superuser: boolean;
  /** Role in organization A. */
  organizationRole: 'owner' | 'admin' | 'member' | null;
  /** Permissions on site A. */
  sitePermissions: ReadonlySet<string>;
}

export interface SecurityFixture {
  platform: TestPlatform;
  a: SiteObjects;
  b: SiteObjects;
  identities: Identity[];
  /** The identity whose id and username fill `{user_id}` and `{username}`: a member with `view_site`. */
  target: Identity;
  /** Strings only site A's objects contain: none may show up in an answer given on site B. */
  markersOfA: string[];
}

/** The field list of the fixture's data table: `code` is unique, so upserts have a key. */
export const tableFields = [
  { name: 'title', type: 'string' },
  { name: 'code', type: 'string', constraints: { unique: true } },
];

/** The fixture table's graph, so that the edge routes have edges to list, change and delete. */
export const fixtureGraph = { enabled: true, types: [{ name: 'parent', inverse: 'kids' }] };

async function checked(
  response: Promise<{ status: number; text: string; body: any }>,
  what: string,
): Promise<any> {
  const answer = await response;
  if (answer.status >= 300) throw new Error(`${what}: ${answer.status} ${answer.text}`);
  return answer.body;
}

/** Fills a site with one of each object; `marker` goes into every name so that leaks can be recognised. */
async function populate(platform: TestPlatform, marker: string): Promise<SiteObjects> {
  const tenant = await createTenant(platform);
  const table = `${marker}_table`.replace(/-/g, '_');
  await createTable(tenant.owner, tenant.app.slug, table, { fields: tableFields, graph: fixtureGraph });
  const record = await insert(tenant.owner, tenant.app.slug, table, {
    title: `${marker} record`,
    code: marker,
  });
  const appRole = await checked(
    tenant.owner.post(`/api/app/${tenant.app.slug}/roles`, { name: `${marker} app role` }),
    'app role',
  );
  const siteRole = await checked(
    tenant.owner.post('/api/roles/', { name: `${marker} site role`, role_slugs: [appRole.data.slug] }),
    'site role',
  );
  const secretType = await checked(
    tenant.owner.post('/api/secret-types/', {
      name: `${marker}-type`,
      sensitivity_level: 'private',
      schema: secretSchema,
    }),
    'secret type',
  );
  const tag = await checked(tenant.owner.post('/api/tags/', { name: `${marker}-tag` }), 'tag');
  const secretKey = `${marker}-secret`;
  await checked(
    tenant.owner.post('/api/secrets/', {
      secret_type: secretType.data.slug,
      key: secretKey,
      value: { token: `${marker}-value` },
      tags: [tag.name],
    }),
    'secret',
  );
  return {
    tenant,
    table,
    recordId: String(record.id),
    appRole: appRole.data.slug,
    siteRole: siteRole.data.slug,
    secretType: secretType.data.slug,
    tag: tag.slug,
    tagName: tag.name,
    secretKey,
  };
}

async function identityWith(
  platform: TestPlatform,
  site: string,
  name: string,
  fields: Omit<Identity, 'name' | 'api' | 'user'>,
): Promise<Identity> {
  const { user, api } = await createUser(platform, {}, site);
  return { name, api, user: { id: user.id, username: user.username }, ...fields };
}

/** Builds the whole fixture: about twenty users and two populated sites. */
export async function buildSecurityFixture(platform: TestPlatform): Promise<SecurityFixture> {
  const markerA = unique('alpha');
  const [a, b] = await Promise.all([populate(platform, markerA), populate(platform, unique('beta'))]);
  const site = a.tenant.site.slug;
  const none = new Set<string>();
  const plain = { superuser: false, sitePermissions: none } as const;
  const org = `/api/cloud/organizations/${a.tenant.organization.slug}/members/`;

  const noGrants = await identityWith(platform, site, 'user without grants', {
    ...plain,
    organizationRole: null,
  });
  const member = await identityWith(platform, site, 'org A member without site permissions', {
    ...plain,
    organizationRole: 'member',
  });
  await checked(a.tenant.admin.post(org, { user_id: member.user?.id }), 'member');
  const admin = await identityWith(platform, site, 'org A admin', { ...plain, organizationRole: 'admin' });
  await checked(a.tenant.admin.post(org, { user_id: admin.user?.id, role: 'admin' }), 'admin');
  const holders = await Promise.all(
    sitePermissionNames.map((permission) =>
      identityWith(platform, site, `member with ${permission}`, {
        superuser: false,
        organizationRole: 'member',
        sitePermissions: new Set([permission]),
      }),
    ),
  );
  for (const holder of holders)
    await grantSite(a.tenant, holder.user?.id as number, [...holder.sitePermissions]);

  const identities: Identity[] = [
    { name: 'anonymous', api: platform.api.forSite(site), user: null, ...plain, organizationRole: null },
    noGrants,
    member,
    ...holders,
    admin,
    {
      name: 'org A owner',
      api: a.tenant.owner,
      user: a.tenant.ownerUser,
      ...plain,
      organizationRole: 'owner',
    },
    {
      name: 'org B owner',
      api: b.tenant.owner.forSite(site),
      user: b.tenant.ownerUser,
      ...plain,
      organizationRole: null,
    },
    {
      name: 'superuser',
      api: platform.adminApi.forSite(site),
      user: { id: platform.admin.user.id, username: platform.admin.user.username },
      superuser: true,
      organizationRole: null,
      sitePermissions: none,
    },
  ];
  const target = holders.find((holder) => holder.sitePermissions.has('view_site')) as Identity;
  const markersOfA = [markerA, a.tenant.app.slug, a.table, a.appRole, a.siteRole, a.tenant.site.slug];
  return { platform, a, b, identities, target, markersOfA };
}

/** Paths of the fixture's data table, for throwaway objects. */
export const fixturePaths = {
  table: (objects: SiteObjects) => tablePath(objects.tenant.app.slug, objects.table),
  data: (objects: SiteObjects) => dataPath(objects.tenant.app.slug, objects.table),
};

export { checked };
