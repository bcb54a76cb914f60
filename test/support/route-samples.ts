import { randomBytes } from 'node:crypto';
import type { RouteDef } from '../../shared/http/route';
import { createTable, insert } from './data';
import {
  checked,
  fixturePaths,
  type SecurityFixture,
  type SiteObjects,
  secretSchema,
  tableFields,
} from './security-fixture';

/**
 * How the route-table suites call any route: a value for every path parameter and a minimal valid request per
 * operation. A route whose parameter or operation is missing here fails the suites, so new routes are noticed.
 */

/** One call of a route: its path parameters, query string and body. */
export interface Call {
  params: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
}

/** The password `createUser` (test/support/tenant.ts) gives every user. */
const defaultPassword = 'Velvet-Harbor-Quill-42';

/** A fresh name PostgreSQL and the data API accept as an identifier. */
export function freshName(prefix: string): string {
  return `${prefix}_${randomBytes(4).toString('hex')}`;
}

/** The value of each path parameter: site A's objects, and the target identity. */
export function paramValues(fixture: SecurityFixture): Record<string, string> {
  const { a, target } = fixture;
  return {
    org_slug: a.tenant.organization.slug,
    site_slug: a.tenant.site.slug,
    app_slug: a.tenant.app.slug,
    user_id: String(target.user?.id),
    username: target.user?.username as string,
    role_slug: a.appRole,
    slug: a.siteRole,
    name: a.table,
    id: a.recordId,
    field: 'title',
    index: 'missing_index',
    asset: 'swagger-ui.css',
    key: a.secretKey,
    // An invitation token no invitation has: operations that need a real one make it (samples below).
    uuid: '00000000-0000-4000-8000-000000000000',
    token: '00000000-0000-4000-8000-000000000000',
    edge_id: '00000000-0000-4000-8000-000000000000',
  };
}

type Sample = (fixture: SecurityFixture, site: SiteObjects) => Partial<Call> | Promise<Partial<Call>>;

const none: Sample = () => ({});

async function throwawayAppRole(site: SiteObjects): Promise<string> {
  const role = await checked(
    site.tenant.owner.post(`/api/app/${site.tenant.app.slug}/roles`, { name: freshName('Throwaway') }),
    'throwaway app role',
  );
  return role.data.slug;
}

async function throwawayField(site: SiteObjects): Promise<string> {
  const field = freshName('f');
  await checked(
    site.tenant.owner.post(`${fixturePaths.table(site)}fields/`, { name: field, type: 'string' }),
    'throwaway field',
  );
  return field;
}

async function throwawayRecord(site: SiteObjects): Promise<string> {
  const record = await insert(site.tenant.owner, site.tenant.app.slug, site.table, {
    title: 'throwaway',
    code: freshName('c'),
  });
  return String(record.id);
}

/** An edge from a throwaway record to the fixture's record: its id and its from_id. */
async function throwawayEdge(site: SiteObjects): Promise<{ id: string; from: string }> {
  const from = await throwawayRecord(site);
  const edge = await checked(
    site.tenant.owner.post(`${fixturePaths.table(site)}edges/`, {
      from_id: from,
      to_id: site.recordId,
      type: 'parent',
    }),
    'throwaway edge',
  );
  return { id: edge.data.id, from };
}

async function signIn(fixture: SecurityFixture) {
  const username = fixture.target.user?.username as string;
  return checked(
    fixture.platform.api.post('/api/auth/jwt/token/', { username, password: defaultPassword }),
    'sign-in',
  );
}

/** A pending invitation of site A's organization, made by its owner: its token and its invitee's id. */
async function throwawayInvitation(site: SiteObjects): Promise<{ uuid: string; invitee: number }> {
  const path = `/api/cloud/organizations/${site.tenant.organization.slug}/invitations/`;
  const made = await checked(
    site.tenant.owner.post(path, { invitee_identifier: `${freshName('invitee')}@example.com` }),
    'invitation',
  );
  const shown = await checked(site.tenant.owner.get(`${path}${made.uuid}/`), 'invitation details');
  return { uuid: made.uuid, invitee: shown.invitee };
}

const targetName = (fixture: SecurityFixture) => fixture.target.user?.username as string;

/** A minimal valid request per operation; destructive ones act on throwaway objects so the fixture stays whole. */
export const samples: Record<string, Sample> = {
  obtainToken: (fixture) => ({ body: { username: targetName(fixture), password: defaultPassword } }),
  refreshToken: async (fixture) => ({ body: { refresh: (await signIn(fixture)).refresh } }),
  jwks: none,

  createInvitation: () => ({ body: { invitee_identifier: `${freshName('invitee')}@example.com` } }),
  listInvitations: none,
  getInvitation: async (_fixture, site) => ({ params: { uuid: (await throwawayInvitation(site)).uuid } }),
  deleteInvitation: async (_fixture, site) => ({ params: { uuid: (await throwawayInvitation(site)).uuid } }),
  resendInvitation: async (_fixture, site) => ({
    params: { user_id: String((await throwawayInvitation(site)).invitee) },
  }),
  getInvitationDetails: async (_fixture, site) => ({
    params: { token: (await throwawayInvitation(site)).uuid },
  }),
  acceptInvitation: async (_fixture, site) => ({
    params: { token: (await throwawayInvitation(site)).uuid },
    body: { password: defaultPassword, first_name: 'Matrix', last_name: 'Invitee' },
  }),

  getCurrentUser: none,
  listUsers: none,
  createUser: () => {
    const username = freshName('matrix');
    return { body: { email: `${username}@example.com`, username, password: defaultPassword } };
  },
  getUser: none,
  updateUser: () => ({ body: { first_name: 'Matrix' } }),
  listOrganizations: none,
  createOrganization: () => ({ body: { name: freshName('Org') } }),
  getOrganization: none,
  listMembers: none,
  addMember: (fixture) => ({ body: { user_id: fixture.target.user?.id, role: 'member' } }),
  // A user outside the organization: allowed callers get a 400, and the owner stays the owner.
  transferOwnership: (fixture) => ({ body: { user_id: fixture.b.tenant.ownerUser.id } }),
  listSites: none,
  createSite: () => ({ body: { name: freshName('Site') } }),
  listSitePermissions: none,
  setSitePermissions: () => ({ body: { permissions: ['view_site'] } }),
  listApps: none,
  createApp: () => ({ body: { name: freshName('App') } }),
  getApp: none,

  listAppRoles: none,
  createAppRole: () => ({ body: { name: freshName('Role') } }),
  getAppRole: none,
  updateAppRole: () => ({ body: { description: 'matrix' } }),
  deleteAppRole: async (_fixture, site) => ({ params: { role_slug: await throwawayAppRole(site) } }),
  listSiteRoles: none,
  createSiteRole: () => ({ body: { name: freshName('Team') } }),
  getSiteRole: none,
  updateSiteRole: () => ({ body: { description: 'matrix' } }),
  deleteSiteRole: async (_fixture, site) => {
    const role = await checked(
      site.tenant.owner.post('/api/roles/', { name: freshName('Team') }),
      'site role',
    );
    return { params: { slug: role.data.slug } };
  },
  assignRoles: (fixture, site) => ({ body: { roles: [site.appRole], usernames: [targetName(fixture)] } }),
  revokeRoles: (fixture, site) => ({ body: { roles: [site.appRole], usernames: [targetName(fixture)] } }),
  listRoleUsers: none,
  addRoleUsers: (fixture) => ({ body: { usernames: [targetName(fixture)] } }),
  replaceRoleUsers: (fixture) => ({ body: { usernames: [targetName(fixture)] } }),
  updateRoleUsers: (fixture) => ({ body: { usernames: [targetName(fixture)], expires_at: null } }),
  removeRoleUsers: (fixture) => ({ body: { usernames: [targetName(fixture)] } }),
  listUserRoles: none,
  addUserRoles: (_fixture, site) => ({ body: { role_slugs: [site.appRole] } }),
  removeUserRoles: (_fixture, site) => ({ body: { role_slugs: [site.appRole] } }),
  listRoleDescendants: none,
  listRoleAncestors: none,

  listDataTables: none,
  createDataTable: () => ({ body: { name: freshName('t'), schema: { fields: tableFields } } }),
  getDataTable: none,
  updateDataTable: () => ({ body: { description: 'matrix' } }),
  dropDataTable: async (_fixture, site) => {
    const name = freshName('t');
    await createTable(site.tenant.owner, site.tenant.app.slug, name, { fields: tableFields });
    return { params: { name } };
  },
  addDataTableField: () => ({ body: { name: freshName('f'), type: 'string' } }),
  dropDataTableField: async (_fixture, site) => ({ params: { field: await throwawayField(site) } }),
  addDataTableIndex: () => ({ body: { name: freshName('i'), fields: ['title'] } }),
  dropDataTableIndex: async (_fixture, site) => {
    const index = freshName('i');
    await checked(
      site.tenant.owner.post(`${fixturePaths.table(site)}indexes/`, { name: index, fields: ['title'] }),
      'throwaway index',
    );
    return { params: { index } };
  },
  listRecords: none,
  createRecords: () => ({ body: { title: 'matrix', code: freshName('c') } }),
  updateRecords: (_fixture, site) => ({ body: [{ id: Number(site.recordId), title: 'matrix' }] }),
  deleteRecords: async (_fixture, site) => ({ query: { ids: await throwawayRecord(site) } }),
  upsertRecords: () => ({
    query: { unique_fields: 'code' },
    body: { code: freshName('c'), title: 'upsert' },
  }),
  getRecord: none,
  updateRecord: () => ({ body: { title: 'matrix' } }),
  deleteRecord: async (_fixture, site) => ({ params: { id: await throwawayRecord(site) } }),
  listEdges: none,
  createEdges: async (_fixture, site) => ({
    body: { from_id: await throwawayRecord(site), to_id: site.recordId, type: 'parent' },
  }),
  updateEdge: async (_fixture, site) => {
    const edge = await throwawayEdge(site);
    return {
      params: { edge_id: edge.id },
      body: { from_id: edge.from, to_id: site.recordId, type: 'parent', metadata: { matrix: true } },
    };
  },
  deleteEdges: async (_fixture, site) => ({ query: { ids: (await throwawayEdge(site)).id } }),

  listSecretTypes: none,
  createSecretType: () => ({
    body: { name: freshName('Type'), sensitivity_level: 'private', schema: secretSchema },
  }),
  getSecretType: (_fixture, site) => ({ params: { slug: site.secretType } }),
  updateSecretType: (_fixture, site) => ({
    params: { slug: site.secretType },
    body: { description: 'matrix' },
  }),
  deleteSecretType: async (_fixture, site) => {
    const type = await checked(
      site.tenant.owner.post('/api/secret-types/', { name: freshName('Type'), sensitivity_level: 'public' }),
      'throwaway secret type',
    );
    return { params: { slug: type.data.slug } };
  },
  listSecrets: none,
  createSecret: (_fixture, site) => ({
    body: { secret_type: site.secretType, key: freshName('key'), value: { token: 'matrix' } },
  }),
  getSecret: none,
  updateSecret: (_fixture, site) => ({
    body: { secret_type: site.secretType, value: { token: 'matrix' }, tags: [site.tagName] },
  }),
  deleteSecret: async (_fixture, site) => {
    const key = freshName('key');
    await checked(
      site.tenant.owner.post('/api/secrets/', { secret_type: site.secretType, key, value: { token: 'x' } }),
      'throwaway secret',
    );
    return { params: { key } };
  },
  secretHistory: none,
  listTags: none,
  createTag: () => ({ body: { name: freshName('tag') } }),
  getTag: (_fixture, site) => ({ params: { slug: site.tag } }),
  replaceTag: (_fixture, site) => ({ params: { slug: site.tag }, body: { name: site.tagName } }),
  patchTag: (_fixture, site) => ({ params: { slug: site.tag }, body: { description: 'matrix' } }),
  deleteTag: async (_fixture, site) => {
    const tag = await checked(
      site.tenant.owner.post('/api/tags/', { name: freshName('tag') }),
      'throwaway tag',
    );
    return { params: { slug: tag.slug } };
  },

  openApiDocument: none,
  openApiDocumentAlias: none,
  apiExplorer: none,
  apiExplorerAsset: none,
  health: none,
};

/** The path parameter names of a route, in order. */
export function pathParams(route: RouteDef): string[] {
  return [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as string);
}

/** The concrete path of a route for these parameters; throws when one has no value. */
export function fillPath(route: RouteDef, params: Record<string, string>): string {
  return route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${route.operationId}: no value for path parameter {${name}}`);
    return encodeURIComponent(value);
  });
}

/** The call of a route on one site's objects: parameters from the table, request from the sample. */
export async function sampleCall(
  route: RouteDef,
  fixture: SecurityFixture,
  site: SiteObjects,
): Promise<Call> {
  const sample = samples[route.operationId];
  if (!sample) throw new Error(`${route.operationId}: no sample request in test/support/route-samples.ts`);
  const made = await sample(fixture, site);
  const params = { ...paramValues(fixture), ...made.params };
  for (const name of pathParams(route))
    if (!(name in params)) throw new Error(`${route.operationId}: no value for path parameter {${name}}`);
  return { params, query: made.query, body: made.body };
}

/** The path with its query string. */
export function urlOf(route: RouteDef, call: Call): string {
  const query = call.query ? `?${new URLSearchParams(call.query).toString()}` : '';
  return `${fillPath(route, call.params)}${query}`;
}
