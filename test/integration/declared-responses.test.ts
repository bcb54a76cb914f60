import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsPlugin from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groups, routes } from '../../functions/groups';
import { envelopeSchemas } from '../../shared/api/responses';
import type { JsonSchema } from '../../shared/api/route';
import type { ApiResponse } from '../support/client';
import { dataPath, tablePath, tablesPath } from '../support/data';
import { adminPassword, startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, createUser, type Tenant, unique } from '../support/tenant';

// ajv-formats ships CommonJS; under ESM interop the plugin may sit on `default`.
const addFormats = ((addFormatsPlugin as unknown as { default?: typeof addFormatsPlugin }).default ??
  addFormatsPlugin) as typeof addFormatsPlugin;
const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);
const compiled = new Map<JsonSchema, ValidateFunction>();

/** Checks a real response against the schema its route declares for its status (the envelope for errors). */
function expectDeclared(operationId: string, response: ApiResponse): void {
  const route = routes.find((candidate) => candidate.operationId === operationId);
  if (!route) throw new Error(`no route ${operationId}`);
  const declared = route.responses?.[response.status];
  expect(
    declared,
    `${operationId} answered an undeclared ${response.status}: ${response.text}`,
  ).toBeDefined();
  const schema = declared?.schema ?? envelopeSchemas[groups[route.group].envelope].schema;
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  const body = response.status === 204 ? undefined : response.body;
  if (response.status === 204) {
    expect(response.text).toBe('');
    return;
  }
  expect(validate(body) ? [] : validate.errors, `${operationId} ${response.status}`).toEqual([]);
}

let platform: TestPlatform;
let tenant: Tenant;

beforeAll(async () => {
  platform = await startTestPlatform();
  tenant = await createTenant(platform);
});
afterAll(async () => {
  await platform.stop();
});

const org = () => `/api/cloud/organizations/${tenant.organization.slug}`;

describe('real responses match the schemas their routes declare', () => {
  it('auth and meta', async () => {
    expectDeclared(
      'obtainToken',
      await platform.api.post('/api/auth/jwt/token/', {
        username: 'admin@example.com',
        password: adminPassword,
      }),
    );
    expectDeclared(
      'obtainToken',
      await platform.api.post('/api/auth/jwt/token/', { username: 'x', password: 'y' }),
    );
    expectDeclared('obtainToken', await platform.api.post('/api/auth/jwt/token/', {}));
    expectDeclared('refreshToken', await platform.api.post('/api/auth/jwt/refresh/', { refresh: 'nope' }));
    expectDeclared('jwks', await platform.api.get('/.well-known/jwks.json'));
    expectDeclared('health', await platform.api.get('/health'));
    expectDeclared('openApiDocument', await platform.api.get('/ninja-openapi.json'));
  });

  it('accounts: users, organizations, members, sites, permissions and apps', async () => {
    const admin = platform.adminApi;
    const { user, api } = await createUser(platform);
    expectDeclared('getCurrentUser', await api.get('/api/cloud/users/me/'));
    expectDeclared('getCurrentUser', await platform.api.get('/api/cloud/users/me/'));
    expectDeclared('listUsers', await admin.get('/api/cloud/users/?page_size=2'));
    expectDeclared('listUsers', await api.get('/api/cloud/users/'));
    expectDeclared('getUser', await admin.get(`/api/cloud/users/${user.id}/`));
    expectDeclared(
      'updateUser',
      await admin.patch(`/api/cloud/users/${user.id}/`, { first_name: 'Renamed' }),
    );
    expectDeclared('updateUser', await api.patch(`/api/cloud/users/${user.id}/`, { is_superuser: true }));
    expectDeclared('listOrganizations', await tenant.owner.get('/api/cloud/organizations/'));
    expectDeclared('getOrganization', await tenant.owner.get(`${org()}/`));
    expectDeclared('getOrganization', await api.get(`${org()}/`));
    expectDeclared('addMember', await admin.post(`${org()}/members/`, { user_id: user.id, role: 'admin' }));
    expectDeclared(
      'addMember',
      await admin.post(`${org()}/members/`, {
        email: `${unique('new')}@example.com`,
        password: 'Lantern-Fjord-Mosaic-3',
      }),
    );
    expectDeclared('listMembers', await tenant.owner.get(`${org()}/members/`));
    expectDeclared('listMembers', await api.get(`${org()}/members/`));
    expectDeclared('listSites', await tenant.owner.get(`${org()}/sites/`));
    const permissions = `${org()}/sites/${tenant.site.slug}/permissions/`;
    expectDeclared(
      'setSitePermissions',
      await tenant.owner.put(`${permissions}${user.id}/`, { permissions: ['view_site'] }),
    );
    expectDeclared('listSitePermissions', await tenant.owner.get(permissions));
    expectDeclared('createSite', await tenant.owner.post(`${org()}/sites/`, { name: '' }));
    expectDeclared('listApps', await tenant.owner.get('/api/apps/'));
    expectDeclared('getApp', await tenant.owner.get(`/api/apps/${tenant.app.slug}/`));
    expectDeclared('getApp', await tenant.owner.get('/api/apps/no-such-app/'));
    expectDeclared(
      'createApp',
      await tenant.owner.post('/api/apps/', { name: tenant.app.name, slug: tenant.app.slug }),
    );
  });

  it('roles: application roles, site roles and memberships', async () => {
    const { user } = await createUser(platform);
    const roles = `/api/app/${tenant.app.slug}/roles`;
    const parent = await tenant.owner.post(roles, { name: 'Editors' });
    expectDeclared('createAppRole', parent);
    expectDeclared('createAppRole', await tenant.owner.post(roles, { name: 'Editors' }));
    expectDeclared(
      'createAppRole',
      await tenant.owner.post(roles, { name: 'Writers', parent_role_slug: parent.body.data.slug }),
    );
    expectDeclared('listAppRoles', await tenant.owner.get(roles));
    expectDeclared('getAppRole', await tenant.owner.get(`${roles}/${parent.body.data.slug}`));
    expectDeclared(
      'updateAppRole',
      await tenant.owner.put(`${roles}/${parent.body.data.slug}`, { name: 'x' }),
    );
    const siteRole = await tenant.owner.post('/api/roles/', {
      name: 'Staff',
      role_slugs: [parent.body.data.slug],
    });
    expectDeclared('createSiteRole', siteRole);
    expectDeclared('listSiteRoles', await tenant.owner.get('/api/roles/'));
    const bulk = { roles: [siteRole.body.data.slug, 'no-such-role'], usernames: [user.username] };
    expectDeclared('assignRoles', await tenant.owner.post('/api/assign/roles', bulk));
    expectDeclared('listRoleUsers', await tenant.owner.get(`/api/roles/${siteRole.body.data.slug}/users`));
    expectDeclared('listUserRoles', await tenant.owner.get(`/api/users/${user.username}/roles`));
    expectDeclared(
      'listRoleDescendants',
      await tenant.owner.get(`/api/roles/${parent.body.data.slug}/descendants`),
    );
    expectDeclared('deleteSiteRole', await tenant.owner.delete(`/api/roles/${siteRole.body.data.slug}`));
    expectDeclared('deleteAppRole', await tenant.owner.delete(`${roles}/${parent.body.data.slug}`));
    expectDeclared('listAppRoles', await platform.api.forSite(tenant.site.slug).get(roles));
  });

  it('data: tables and records', async () => {
    const app = tenant.app.slug;
    const name = 'notes';
    const table = await tenant.owner.post(tablesPath(app), {
      name,
      schema: { fields: [{ name: 'title', type: 'string', constraints: { unique: true } }] },
    });
    expectDeclared('createDataTable', table);
    expectDeclared('listDataTables', await tenant.owner.get(tablesPath(app)));
    expectDeclared('getDataTable', await tenant.owner.get(tablePath(app, 'missing')));
    const records = dataPath(app, name);
    expectDeclared('createRecords', await tenant.owner.post(records, { title: 'one' }));
    expectDeclared('createRecords', await tenant.owner.post(records, [{ title: 'two' }, { title: 'three' }]));
    expectDeclared('createRecords', await tenant.owner.post(records, { title: 'one' }));
    expectDeclared('createRecords', await tenant.owner.post(records, { title: 5 }));
    const page = await tenant.owner.get(`${records}?page_size=2`);
    expectDeclared('listRecords', page);
    const id = page.body.data[0].id;
    expectDeclared('getRecord', await tenant.owner.get(`${records}${id}/`));
    expectDeclared('updateRecord', await tenant.owner.patch(`${records}${id}/`, { title: 'first' }));
    expectDeclared(
      'upsertRecords',
      await tenant.owner.post(`${records}upsert/?unique_fields=title`, { title: 'four' }),
    );
    expectDeclared('updateRecords', await tenant.owner.patch(`${records}?title=four`, { title: 'quatre' }));
    expectDeclared('deleteRecords', await tenant.owner.delete(`${records}?ids=${id}`));
    expectDeclared('dropDataTable', await tenant.owner.delete(tablePath(app, name)));
  });
});

describe('adding a new account as a member', () => {
  it('without an e-mail is a 400 naming the field, not a server error', async () => {
    const response = await platform.adminApi.post(`${org()}/members/`, {
      username: unique('nomail'),
      password: 'Lantern-Fjord-Mosaic-3',
    });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ email: ['This field is required.'] });
  });
});
