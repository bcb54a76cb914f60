import { randomBytes, randomUUID } from 'node:crypto';
import { loadManifest } from '../../functions/pages/console';
import type { RouteDef } from '../../shared/api/route';
import { createTable, insert } from './data';
import { latestToken } from './invitation-mail';
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
    invitation_id: '00000000-0000-4000-8000-000000000000',
    username: target.user?.username as string,
    role_slug: a.appRole,
    slug: a.siteRole,
    name: a.table,
    id: a.recordId,
    field: 'title',
    index: 'missing_index',
    asset: 'swagger-ui.css',
    key: a.secretKey,
    // An invitation uuid and a token (the form of one) no invitation has: operations that need real ones make
    // them (samples below).
    uuid: '00000000-0000-4000-8000-000000000000',
    token: 'A'.repeat(43),
    // A group no organization has: operations that need a real one make it (samples below).
    group_slug: 'no-such-group',
    // GitHub's endpoints are fixed: its redirect answers without reaching the network (socialGitHub below).
    provider: 'github',
    // No function has this id: operations that need a real one register it (samples below).
    function_id: '999999999',
    // No webhook endpoint has this id: operations that need a real one register it (samples below).
    webhook_id: '999999999',
    event_name: 'PRE_USER_CREATE',
    edge_id: '00000000-0000-4000-8000-000000000000',
    // No key has this id: revocations make a real one (samples below).
    key_id: '00000000-0000-4000-8000-000000000000',
    // A browser session's hash no sign-in made: ending it ends nothing (204, to anyone alike).
    session_id: 'f'.repeat(64),
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
/** An invitation of site A's organization: its uuid, and the token its e-mail carries (read from the outbox). */
async function throwawayInvitation(
  fixture: SecurityFixture,
  site: SiteObjects,
): Promise<{ uuid: string; token: string }> {
  const path = `/api/cloud/organizations/${site.tenant.organization.slug}/invitations/`;
  const email = `${freshName('invitee')}@example.com`;
  const made = await checked(site.tenant.owner.post(path, { invitee_identifier: email }), 'invitation');
  return { uuid: made.uuid, token: latestToken(fixture.platform, email) };
}

/** A group of site A's organization, made by its owner, with the owner in it: its slug. */
async function throwawayGroup(site: SiteObjects): Promise<string> {
  const path = `/api/cloud/organizations/${site.tenant.organization.slug}/groups/`;
  const made = await checked(site.tenant.owner.post(path, { name: freshName('Group') }), 'group');
  await checked(
    site.tenant.owner.post(`${path}${made.slug}/members/`, { user_id: site.tenant.ownerUser.id }),
    'group member',
  );
  return made.slug;
}

/** A function registered in site A's app (the shipped example subscriber): its id. */
async function throwawayFunction(site: SiteObjects): Promise<string> {
  const made = await checked(
    site.tenant.owner.post(`/api/apps/${site.tenant.app.slug}/functions/`, {
      name: freshName('Fn'),
      target: 'allow.mjs',
    }),
    'throwaway function',
  );
  return String(made.data.id);
}

/**
 * A public address literal (no name to resolve, no network needed to register it) and a table no app has, so that
 * nothing is ever delivered to it.
 */
const webhookBody = () => ({
  url: 'https://93.184.215.14/hook',
  events: ['POST_RECORD_CREATE'],
  tables: ['no_such'],
});

/** A webhook endpoint registered in site A's app: its id. */
async function throwawayWebhook(site: SiteObjects): Promise<string> {
  const made = await checked(
    site.tenant.owner.post(`/api/apps/${site.tenant.app.slug}/webhooks/`, webhookBody()),
    'throwaway webhook',
  );
  return String(made.data.id);
}

/** A throwaway function subscribed to POST_USER_CREATE: the body and path of its unsubscription. */
async function throwawaySubscription(site: SiteObjects): Promise<Partial<Call>> {
  const id = await throwawayFunction(site);
  await checked(
    site.tenant.owner.post('/api/cloud/events/POST_USER_CREATE/subscribe/', { function_id: Number(id) }),
    'throwaway subscription',
  );
  return { params: { event_name: 'POST_USER_CREATE' }, body: { function_id: Number(id) } };
}

const targetName = (fixture: SecurityFixture) => fixture.target.user?.username as string;

/** A social app body that passes the SSRF check without DNS (a public address literal, never fetched on write). */
function socialAppBody() {
  return {
    provider: 'openid_connect',
    provider_id: freshName('idp').replace(/_/g, '-'),
    name: 'Throwaway IdP',
    client_id: 'client',
    secret: 'secret',
    settings: { server_url: 'https://93.184.216.34/.well-known/openid-configuration' },
  };
}

async function throwawaySocialApp(site: SiteObjects): Promise<string> {
  const made = await checked(site.tenant.owner.post('/api/auth/social-apps/', socialAppBody()), 'social app');
  return String(made.data.id);
}

/** A key of the site made by its owner, for a revocation. */
async function throwawayApiKey(site: SiteObjects): Promise<string> {
  const { organization, site: made } = site.tenant;
  const key = await site.tenant.owner.post(
    `/api/cloud/organizations/${organization.slug}/sites/${made.slug}/api-keys/`,
    { name: freshName('Key'), permissions: ['view_site'] },
  );
  if (key.status !== 201) throw new Error(`throwaway API key: ${key.status} ${key.text}`);
  return key.body.id as string;
}

/** Site A's GitHub app, made once. */
async function socialGitHub(site: SiteObjects): Promise<void> {
  const found = await checked(site.tenant.owner.get('/api/auth/social-apps/?provider=github'), 'social apps');
  if (found.total > 0) return;
  const body = { provider: 'github', name: 'GitHub', client_id: 'gh-client', secret: 'gh-secret' };
  await checked(site.tenant.owner.post('/api/auth/social-apps/', body), 'GitHub app');
}

/** A minimal valid request per operation; destructive ones act on throwaway objects so the fixture stays whole. */
export const samples: Record<string, Sample> = {
  obtainToken: (fixture) => ({ body: { username: targetName(fixture), password: defaultPassword } }),
  refreshToken: async (fixture) => ({ body: { refresh: (await signIn(fixture)).refresh } }),
  jwks: none,
  startBrowserSession: (fixture) => ({ body: { username: targetName(fixture), password: defaultPassword } }),
  endBrowserSession: none,
  listSessions: none,
  // A session id no sign-in made: nothing ends, a 204 to anyone alike.
  endSession: () => ({ params: { session_id: 'f'.repeat(64) } }),
  // Ends the caller's other refresh families and browser sessions; the fixture's access tokens go on.
  endOtherSessions: none,
  getMfaStatus: none,
  // A pending enrolment of the caller (each call replaces it); a user with a factor is a 409.
  enrolTotp: none,
  // A code no secret gives (not six digits): the route answers its 400 at `code`, and the caller keeps no factor.
  confirmTotp: () => ({ body: { code: 'not-a-code' } }),
  // Neither password nor code: a 400 at `password` (a real removal would end the fixture's tokens).
  removeTotp: () => ({ body: {} }),
  // Neither code nor recovery_code: a 400 at `code`, before the mfa_token is looked at, to anyone alike.
  authenticateMfa: () => ({ body: { mfa_token: 'not-an-mfa-token' } }),
  authenticateMfaSession: () => ({ body: { mfa_token: 'not-an-mfa-token' } }),
  // A new address each time: requests are limited per address asked for.
  requestPasswordReset: () => ({ body: { email: `${randomUUID()}@example.com` } }),
  // A token no reset link carries: the route answers its 400 at `token`, to anyone alike.
  confirmPasswordReset: () => ({ body: { token: 'A'.repeat(43), password: defaultPassword } }),
  signUp: () => ({ body: { email: `${randomUUID()}@example.com`, password: defaultPassword } }),
  confirmEmailAddress: () => ({ body: { token: 'A'.repeat(43) } }),
  // A wrong current password: the route answers its 400 at `current_password` and changes nothing.
  requestEmailChange: () => ({
    body: { email: `${randomUUID()}@example.com`, current_password: 'not-the-password' },
  }),

  listSocialApps: none,
  createSocialApp: () => ({ body: socialAppBody() }),
  getSocialApp: async (_fixture, site) => ({ params: { id: await throwawaySocialApp(site) } }),
  updateSocialApp: async (_fixture, site) => ({
    params: { id: await throwawaySocialApp(site) },
    body: { name: 'Renamed IdP' },
  }),
  deleteSocialApp: async (_fixture, site) => ({ params: { id: await throwawaySocialApp(site) } }),
  checkSocialApp: async (_fixture, site) => ({ params: { id: await throwawaySocialApp(site) } }),
  listSocialAccounts: none,
  // No identity has this link: 404 for every signed-in caller (test/support/expected-access.ts).
  deleteSocialAccount: () => ({ params: { id: '999999999' } }),
  providerRedirect: async (_fixture, site) => {
    await socialGitHub(site);
    return { query: { redirect_uri: 'https://app.example.com/auth/callback' } };
  },
  // A state no login started: a 400, counted by the sign-in limiter of the address.
  providerToken: async (_fixture, site) => {
    await socialGitHub(site);
    return { body: { code: 'sample-code', state: 'sample-state' } };
  },

  createInvitation: () => ({ body: { invitee_identifier: `${freshName('invitee')}@example.com` } }),
  listInvitations: none,
  getInvitation: async (fixture, site) => ({
    params: { uuid: (await throwawayInvitation(fixture, site)).uuid },
  }),
  deleteInvitation: async (fixture, site) => ({
    params: { uuid: (await throwawayInvitation(fixture, site)).uuid },
  }),
  // The path's {invitation_id} (the specification's {user_id} segment) is the invitation's uuid.
  resendInvitation: async (fixture, site) => ({
    params: { invitation_id: (await throwawayInvitation(fixture, site)).uuid },
  }),
  getInvitationDetails: async (fixture, site) => ({
    params: { token: (await throwawayInvitation(fixture, site)).token },
  }),
  acceptInvitation: async (fixture, site) => ({
    params: { token: (await throwawayInvitation(fixture, site)).token },
    body: { password: defaultPassword, first_name: 'Matrix', last_name: 'Invitee' },
  }),

  getCurrentUser: none,
  getOwnSitePermissions: none,
  checkPassword: () => ({ body: { password: defaultPassword } }),
  listUsers: none,
  createUser: () => {
    const username = freshName('matrix');
    return { body: { email: `${username}@example.com`, username, password: defaultPassword } };
  },
  getUser: none,
  updateUser: () => ({ body: { first_name: 'Matrix' } }),
  sendUserPasswordReset: none,
  listUserOrganizations: none,
  listOrganizations: none,
  createOrganization: () => ({ body: { name: freshName('Org') } }),
  getOrganization: none,
  // Off (as it was): turning it on would lock the fixture's accounts, none of which has a second factor.
  setOrganizationRequireMfa: () => ({ body: { require_mfa: false } }),
  listMembers: none,
  addMember: (fixture) => ({ body: { user_id: fixture.target.user?.id, role: 'member' } }),
  // A user outside the organization: allowed callers get a 400, and the owner stays the owner.
  transferOwnership: (fixture) => ({ body: { user_id: fixture.b.tenant.ownerUser.id } }),
  listSites: none,
  createSite: () => ({ body: { name: freshName('Site') } }),
  listSitePermissions: none,
  setSitePermissions: () => ({ body: { permissions: ['view_site'] } }),
  // A permission no key may hold: every member gets its 400 (what a creator may grant: trust-api-keys.test.ts).
  createApiKey: () => ({ body: { name: freshName('Key'), permissions: ['admin_site'] } }),
  listApiKeys: none,
  // Site A's owner's key: those who administer the site revoke it, anyone else is told it is not found.
  revokeApiKey: async (_fixture, site) => ({ params: { key_id: await throwawayApiKey(site) } }),
  listApps: none,
  createApp: () => ({ body: { name: freshName('App') } }),
  getApp: none,
  // A throwaway app: allowed callers delete it, the fixture's app stays.
  deleteApp: async (_fixture, site) => ({
    params: {
      app_slug: (
        await checked(site.tenant.owner.post('/api/apps/', { name: freshName('Doomed') }), 'throwaway app')
      ).slug,
    },
  }),
  // A `confirm` that is not the name: allowed callers get a 400 and nothing is deleted.
  deleteSite: () => ({ query: { confirm: 'not-the-slug' } }),
  deleteOrganization: () => ({ query: { confirm: 'not-the-slug' } }),
  deleteUser: () => ({ query: { confirm: 'not-the-username' } }),
  listGroups: none,
  createGroup: () => ({ body: { name: freshName('Group') } }),
  getGroup: async (_fixture, site) => ({ params: { group_slug: await throwawayGroup(site) } }),
  renameGroup: async (_fixture, site) => ({
    params: { group_slug: await throwawayGroup(site) },
    body: { name: freshName('Renamed') },
  }),
  deleteGroup: async (_fixture, site) => ({ params: { group_slug: await throwawayGroup(site) } }),
  listGroupMembers: async (_fixture, site) => ({ params: { group_slug: await throwawayGroup(site) } }),
  addGroupMember: async (fixture, site) => ({
    params: { group_slug: await throwawayGroup(site) },
    body: { user_id: fixture.target.user?.id ?? site.tenant.ownerUser.id },
  }),
  removeGroupMember: async (_fixture, site) => ({
    params: { group_slug: await throwawayGroup(site), user_id: String(site.tenant.ownerUser.id) },
  }),

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

  createFunction: () => ({ body: { name: freshName('Fn'), target: 'allow.mjs' } }),
  listFunctions: none,
  getFunction: async (_fixture, site) => ({ params: { function_id: await throwawayFunction(site) } }),
  deleteFunction: async (_fixture, site) => ({ params: { function_id: await throwawayFunction(site) } }),
  listEvents: none,
  subscribe: async (_fixture, site) => ({
    params: { event_name: 'POST_USER_CREATE' },
    body: { function_id: Number(await throwawayFunction(site)) },
  }),
  unsubscribe: (_fixture, site) => throwawaySubscription(site),
  appEventSubscribers: () => ({ params: { event_name: 'PRE_USER_CREATE' } }),
  createWebhook: () => ({ body: webhookBody() }),
  listWebhooks: none,
  getWebhook: async (_fixture, site) => ({ params: { webhook_id: await throwawayWebhook(site) } }),
  updateWebhook: async (_fixture, site) => ({
    params: { webhook_id: await throwawayWebhook(site) },
    body: { enabled: false },
  }),
  deleteWebhook: async (_fixture, site) => ({ params: { webhook_id: await throwawayWebhook(site) } }),
  listWebhookDeliveries: async (_fixture, site) => ({ params: { webhook_id: await throwawayWebhook(site) } }),
  replayWebhook: async (_fixture, site) => ({
    params: { webhook_id: await throwawayWebhook(site) },
    body: { since: '2000-01-01T00:00:00Z' },
  }),

  openApiDocument: none,
  openApiDocumentAlias: none,
  apiExplorer: none,
  apiExplorerAsset: none,
  health: none,

  // The hosted pages (pages/): public HTML; each answers a page, whatever the caller.
  invitationPage: async (fixture, site) => ({
    params: { token: (await throwawayInvitation(fixture, site)).token },
  }),
  signInPage: none,
  passwordResetPage: none,
  signUpPage: none,
  verifyEmailPage: none,
  // With a code and a state the page answers 200 and its script completes the exchange in the browser.
  signInCallbackPage: () => ({ query: { code: 'sample-code', state: 'sample-state' } }),
  accountPage: none,
  pageAsset: () => ({ params: { asset: 'pages.css' } }),
  siteName: none,
  // The console: its page and its built script where a build is served (the matrix builds one); elsewhere (the table
  // grants' check) a hashed name no build holds, a 404 before any read.
  consolePage: none,
  consoleAsset: () => ({ params: { asset: builtConsoleScript() ?? 'console-00000000.js' } }),
};

/** The built console's script name, or undefined when no console build is served. */
function builtConsoleScript(): string | undefined {
  try {
    return loadManifest().js;
  } catch {
    return undefined;
  }
}

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
