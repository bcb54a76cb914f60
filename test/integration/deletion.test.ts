import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { siteSchemaName } from '../../shared/data/schema/names';
import { deletionKeys } from '../../shared/lifecycle/keys';
import { roleKeys } from '../../shared/roles/keys';
import { secretKeys } from '../../shared/secrets/keys';
import { createTable, dataPath, insert } from '../support/data';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, createUser, grantSite, type Tenant, unique } from '../support/tenant';

/** Deleting an app and erasing a user (docs/lifecycle.md): who may, and what is left in either store afterwards. */

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform({ EVENT_FUNCTIONS_DIR: 'test/fixtures/subscribers' });
});
afterAll(async () => {
  await platform.stop();
});

async function stored(pk: string, prefix = ''): Promise<Record<string, unknown>[]> {
  const result = await platform.deps.store.doc.send(
    new QueryCommand({
      TableName: platform.deps.store.table,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix },
      ConsistentRead: true,
    }),
  );
  return result.Items ?? [];
}

/** The PostgreSQL tables of a site's schema whose names start with the app's prefix, and its catalog rows. */
async function pgTablesOf(site: string, appId: number): Promise<{ tables: string[]; catalog: number }> {
  const sql = platform.deps.sql();
  const schema = siteSchemaName(site);
  const tables = await sql<{ table_name: string }[]>`SELECT table_name FROM information_schema.tables
    WHERE table_schema = ${schema} AND table_name LIKE ${`a${appId}\\_%`}`;
  const [row] = await sql<{ count: number }[]>`SELECT count(*)::int AS count FROM ${sql(schema)}.catalog
    WHERE app_id = ${appId}`;
  return { tables: tables.map((t) => t.table_name), catalog: row?.count ?? 0 };
}

/** An app with two related tables and records, an app-level secret, a function subscribed, a role held. */
async function populatedApp(tenant: Tenant): Promise<void> {
  const { owner } = tenant;
  const app = tenant.app.slug;
  await createTable(owner, app, 'authors', { fields: [{ name: 'name', type: 'string' }] });
  await createTable(owner, app, 'books', {
    fields: [
      { name: 'title', type: 'string' },
      { name: 'author_id', type: 'string', format: 'uuid' },
    ],
    foreignKeys: [{ fields: 'author_id', reference: { resource: 'authors', fields: 'id' } }],
  });
  const [author] = [await insert(owner, app, 'authors', { name: 'Ada' })];
  await insert(owner, app, 'books', { title: 'Notes', author_id: author.id });
  expect(
    (await owner.post('/api/secret-types/', { name: 'Token', sensitivity_level: 'private' })).status,
  ).toBe(201);
  const secret = await owner.post(`/api/secrets/`, {
    secret_type: 'token',
    key: 'api',
    value: { v: 1 },
    app,
  });
  expect(secret.status).toBe(201);
  expect(
    (await owner.post('/api/secrets/', { secret_type: 'token', key: 'site', value: { v: 2 } })).status,
  ).toBe(201);
  const fn = await owner.post(`/api/apps/${app}/functions/`, { name: 'Hook', target: 'allow.mjs' });
  expect(fn.status).toBe(201);
  expect(
    (await owner.post('/api/cloud/events/PRE_USER_CREATE/subscribe/', { function_id: fn.body.data.id }))
      .status,
  ).toBe(200);
  const role = await owner.post(`/api/app/${app}/roles`, { name: 'editors' });
  expect(role.status).toBe(201);
  const assigned = await owner.post(`/api/roles/${role.body.data.slug}/users`, {
    usernames: [tenant.ownerUser.username],
  });
  expect(assigned.status).toBe(200);
}

describe('DELETE /api/apps/{app_slug}/', () => {
  it('who may: site administrators, organization owners and admins, superusers; others 403, strangers 404', async () => {
    const tenant = await createTenant(platform);
    const path = `/api/apps/${tenant.app.slug}/`;
    for (const permissions of [['view_site'], ['manage_site'], ['delete_site', 'change_site']]) {
      const { user, api } = await createUser(platform);
      await grantSite(tenant, user.id, permissions);
      expect((await api.forSite(tenant.site.slug).delete(path)).status).toBe(403);
    }
    const stranger = await createUser(platform);
    expect((await stranger.api.forSite(tenant.site.slug).delete(path)).status).toBe(403);
    expect((await tenant.owner.get(path)).status).toBe(200);

    const { user, api } = await createUser(platform);
    await grantSite(tenant, user.id, ['admin_site']);
    expect((await api.forSite(tenant.site.slug).delete(path)).status).toBe(204);
    expect((await tenant.owner.get(path)).status).toBe(404);
    expect((await api.forSite(tenant.site.slug).delete(path)).status).toBe(404);

    const other = (await tenant.owner.post('/api/apps/', { name: unique('App') })).body;
    expect((await tenant.admin.forSite(tenant.site.slug).delete(`/api/apps/${other.slug}/`)).status).toBe(
      204,
    );
    const third = (await tenant.owner.post('/api/apps/', { name: unique('App') })).body;
    expect((await tenant.owner.delete(`/api/apps/${third.slug}/`)).status).toBe(204);
    expect((await tenant.owner.get('/api/apps/')).body.results).toEqual([]);
  });

  it('removes its tables and rows in PostgreSQL and everything under it in DynamoDB; the slug can be taken again', async () => {
    const tenant = await createTenant(platform);
    const site = tenant.site.slug;
    const app = tenant.app;
    await populatedApp(tenant);
    const before = await pgTablesOf(site, app.id);
    expect(before.tables.length).toBeGreaterThanOrEqual(2);
    expect(before.catalog).toBe(2);

    expect((await tenant.owner.delete(`/api/apps/${app.slug}/`)).status).toBe(204);
    expect(await pgTablesOf(site, app.id)).toEqual({ tables: [], catalog: 0 });
    expect(await stored(secretKeys.secrets(site), `SECRET#APP#${app.slug}#`)).toEqual([]);
    expect(await stored(secretKeys.history(site, app.slug, 'api'))).toEqual([]);
    expect((await stored(secretKeys.secrets(site), 'SECRET#~#')).length).toBe(1);
    expect((await stored(secretKeys.types(site), 'TYPE#token'))[0]?.secret_count).toBe(1);
    expect(await stored(`SITE#${site}#FUNCTIONS`)).toEqual([]);
    expect(await stored(`SITE#${site}#EVENTS`)).toEqual([]);
    expect(await stored(roleKeys.catalog(site), 'ROLE#')).toEqual([]);
    expect(await stored(roleKeys.catalog(site), 'GONE#')).toEqual([]);
    expect(await stored(roleKeys.members(site, `${app.slug}-editors`))).toEqual([]);
    expect(await stored(deletionKeys.partition, deletionKeys.appsOf(site))).toEqual([]);
    expect(await stored(`APPID#${app.id}`)).toEqual([]);

    // The same slug again: a new app, with nothing of the old one.
    const again = await tenant.owner.post('/api/apps/', { name: app.name, slug: app.slug });
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(app.id);
    expect((await tenant.owner.get(`/api/apps/${app.slug}/datatables/`)).body.data).toEqual([]);
    expect((await tenant.owner.get(dataPath(app.slug, 'authors'))).status).toBe(404);
    expect((await tenant.owner.get(`/api/secrets/api/?app=${app.slug}`)).status).toBe(404);
    expect((await tenant.owner.get(`/api/apps/${app.slug}/functions/`)).body.data.functions).toEqual([]);
  });

  it("removes the app's roles from the bundles of the site's roles (no stale {slug, id} entry is left)", async () => {
    const tenant = await createTenant(platform);
    const site = tenant.site.slug;
    const other = await tenant.owner.post('/api/apps/', { name: unique('Kept') });
    expect(other.status).toBe(201);
    const doomed = await tenant.owner.post(`/api/app/${tenant.app.slug}/roles`, { name: 'writers' });
    const kept = await tenant.owner.post(`/api/app/${other.body.slug}/roles`, { name: 'readers' });
    expect([doomed.status, kept.status]).toEqual([201, 201]);
    const bundle = await tenant.owner.post('/api/roles/', {
      name: 'Staff',
      role_slugs: [doomed.body.data.slug, kept.body.data.slug],
    });
    expect(bundle.status).toBe(201);
    const bundled = async () =>
      ((await stored(roleKeys.catalog(site), `ROLE#${bundle.body.data.slug}`))[0]?.bundle ?? []) as {
        slug: string;
      }[];
    expect((await bundled()).map((entry) => entry.slug).sort()).toEqual(
      [doomed.body.data.slug, kept.body.data.slug].sort(),
    );

    expect((await tenant.owner.delete(`/api/apps/${tenant.app.slug}/`)).status).toBe(204);
    expect((await bundled()).map((entry) => entry.slug)).toEqual([kept.body.data.slug]);
  });

  it('with DELETION_STEPS_PER_REQUEST 1: answers 202, nothing shows, and the next app create finishes the cleanup', async () => {
    const bounded = await startTestPlatform({
      EVENT_FUNCTIONS_DIR: 'test/fixtures/subscribers',
      DELETION_STEPS_PER_REQUEST: '1',
      // The requests' own share of the work is what this test watches: no background sweep beside them.
      DELETIONS_IN_BACKGROUND: 'false',
    });
    try {
      const tenant = await createTenant(bounded);
      const app = tenant.app;
      await createTable(tenant.owner, app.slug, 'notes', { fields: [{ name: 'text', type: 'string' }] });
      await createTable(tenant.owner, app.slug, 'tags', { fields: [{ name: 'text', type: 'string' }] });
      const deleted = await tenant.owner.delete(`/api/apps/${app.slug}/`);
      expect(deleted.status).toBe(202);
      expect(deleted.body.detail).toContain('is deleted');
      expect((await tenant.owner.get(`/api/apps/${app.slug}/`)).status).toBe(404);
      const sql = bounded.deps.sql();
      const schema = siteSchemaName(tenant.site.slug);
      const left = await sql`SELECT 1 FROM ${sql(schema)}.catalog WHERE app_id = ${app.id}`;
      expect(left.length).toBe(1);
      // Each app create in the site spends its budget on the site's pending deletions first, and is refused (409)
      // while some is owed; once the work is done, it creates.
      const refused = await tenant.owner.post('/api/apps/', { name: unique('App') });
      expect(refused.status).toBe(409);
      expect(JSON.stringify(refused.body)).toContain('still being deleted');
      expect((await tenant.owner.post('/api/apps/', { name: unique('App') })).status).toBe(201);
      expect((await sql`SELECT 1 FROM ${sql(schema)}.catalog WHERE app_id = ${app.id}`).length).toBe(0);
    } finally {
      await bounded.stop();
    }
  });
});

describe('DELETE /api/cloud/users/{user_id}/', () => {
  it('who may: the user itself and superusers; another user 404 (never shown, as for GET); an unknown user 404', async () => {
    const a = await createUser(platform);
    const b = await createUser(platform);
    expect((await b.api.delete(`/api/cloud/users/${a.user.id}/?confirm=${a.user.username}`)).status).toBe(
      404,
    );
    expect((await b.api.get('/api/cloud/users/me/')).status).toBe(200);
    expect((await platform.adminApi.delete('/api/cloud/users/999999999/?confirm=nobody')).status).toBe(404);
    // The call names the account twice: without the username as `confirm`, or with another, nothing is erased.
    const unconfirmed = await a.api.delete(`/api/cloud/users/${a.user.id}/`);
    expect(unconfirmed.status).toBe(400);
    expect(unconfirmed.text).toContain('confirm');
    const wrong = await a.api.delete(`/api/cloud/users/${a.user.id}/?confirm=${b.user.username}`);
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('confirm');
    expect((await a.api.get('/api/cloud/users/me/')).status).toBe(200);
    expect((await a.api.delete(`/api/cloud/users/${a.user.id}/?confirm=${a.user.username}`)).status).toBe(
      204,
    );
    // Its tokens die with it.
    expect((await a.api.get('/api/cloud/users/me/')).status).toBe(401);
    expect((await platform.adminApi.get(`/api/cloud/users/${a.user.id}/`)).status).toBe(404);
    expect(
      (await platform.adminApi.delete(`/api/cloud/users/${b.user.id}/?confirm=${b.user.username}`)).status,
    ).toBe(204);
    expect((await b.api.get('/api/cloud/users/me/')).status).toBe(401);
  });

  it('refuses while the user owns an organization (409)', async () => {
    const tenant = await createTenant(platform);
    const response = await tenant.owner.delete(
      `/api/cloud/users/${tenant.ownerUser.id}/?confirm=${tenant.ownerUser.username}`,
    );
    expect(response.status).toBe(409);
    expect(JSON.stringify(response.body)).toContain('transfer');
    expect((await tenant.owner.get('/api/cloud/users/me/')).status).toBe(200);
  });

  it('what others keep names the erased user by its number only: invitations it sent, roles it assigned', async () => {
    const tenant = await createTenant(platform);
    const org = tenant.organization.slug;
    const site = tenant.site.slug;
    const leaving = await createUser(platform);
    const staying = await createUser(platform);
    const members = `/api/cloud/organizations/${org}/members/`;
    await grantSite(tenant, leaving.user.id, ['access_site', 'view_site', 'admin_site']);
    // grantSite makes it a member; then an admin of the organization.
    expect((await platform.adminApi.post(members, { user_id: leaving.user.id, role: 'admin' })).status).toBe(
      200,
    );
    await grantSite(tenant, staying.user.id, ['access_site', 'view_site']);
    expect((await tenant.owner.post('/api/roles/', { name: 'Helpers' })).status).toBe(201);
    // The leaving admin sends an invitation and assigns a role.
    const invited = await leaving.api.post(`/api/cloud/organizations/${org}/invitations/`, {
      invitee_identifier: `${unique('guest')}@example.com`,
    });
    expect(invited.status, JSON.stringify(invited.body)).toBe(201);
    const assigned = await leaving.api
      .forSite(site)
      .post('/api/roles/helpers/users', { usernames: [staying.user.username] });
    expect(assigned.status).toBe(200);

    const erased = await leaving.api.delete(
      `/api/cloud/users/${leaving.user.id}/?confirm=${leaving.user.username}`,
    );
    expect(erased.status).toBe(204);
    // A new account takes the name: nothing the old one left points at it.
    const again = await platform.adminApi.post('/api/cloud/users/', {
      username: leaving.user.username,
      email: leaving.user.email,
      password: 'Velvet-Harbor-Quill-42',
    });
    expect(again.status).toBe(201);

    // The invitation: the inviter's number, nothing that identifies the person.
    const invitation = await tenant.owner.get(
      `/api/cloud/organizations/${org}/invitations/${invited.body.uuid}/`,
    );
    expect(invitation.status).toBe(200);
    expect(invitation.body.invited_by).toBe(leaving.user.id);
    expect(invitation.body.invited_by_user).toMatchObject({ id: leaving.user.id, username: '', email: '' });
    expect(JSON.stringify(invitation.body)).not.toContain(leaving.user.username);
    // The membership it assigned: kept, with the assigner's number and no name.
    const [membership] = await stored(roleKeys.members(site, 'helpers'));
    expect(membership).toMatchObject({ user_id: staying.user.id, assigned_by: leaving.user.id });
    expect(JSON.stringify(membership)).not.toContain(leaving.user.username);
  });

  it('removes what identifies the user and its memberships; others keep the anonymous id; the names are free again', async () => {
    const tenant = await createTenant(platform);
    const org = tenant.organization.slug;
    const site = tenant.site.slug;
    const { user, api } = await createUser(platform);
    await grantSite(tenant, user.id, ['view_site']);
    const role = await tenant.owner.post('/api/roles/', { name: 'Readers' });
    expect(role.status).toBe(201);
    expect((await tenant.owner.post('/api/roles/readers/users', { usernames: [user.username] })).status).toBe(
      200,
    );
    const group = await tenant.owner.post(`/api/cloud/organizations/${org}/groups/`, { name: 'Team' });
    expect(
      (await tenant.owner.post(`/api/cloud/organizations/${org}/groups/team/members/`, { user_id: user.id }))
        .status,
    ).toBe(201);

    expect((await api.delete(`/api/cloud/users/${user.id}/?confirm=${user.username}`)).status).toBe(204);
    expect(await stored(`USER#${user.id}`)).toEqual([]);
    expect(await stored(`ORG#${org}`, `MEMBER#`)).toHaveLength(1);
    expect(await stored(`SITE#${site}`, 'PERM#')).toEqual([]);
    expect(await stored(roleKeys.members(site, 'readers'))).toEqual([]);
    expect(await stored(`ORG#${org}`, `GROUPMEMBER#${String(group.body.id).padStart(12, '0')}#`)).toEqual([]);
    expect(await stored(deletionKeys.partition, deletionKeys.usersPrefix)).toEqual([]);
    const members = await tenant.owner.get(`/api/cloud/organizations/${org}/members/`);
    expect(members.body.results.map((m: { user_id: number }) => m.user_id)).toEqual([tenant.ownerUser.id]);

    // Username and e-mail can be taken again, by a new account with a new id.
    const again = await platform.adminApi.post('/api/cloud/users/', {
      username: user.username,
      email: user.email,
      password: 'Velvet-Harbor-Quill-42',
      first_name: 'New',
      last_name: 'Person',
    });
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(user.id);
    expect((await tenant.owner.get(`/api/roles/readers/users`)).body.total).toBe(0);
  });
});

describe('DELETE /api/cloud/organizations/{org_slug}/sites/{site_slug}/', () => {
  it("who may: the organization's owner and superusers; admins and members 403, strangers 404", async () => {
    const tenant = await createTenant(platform);
    const org = tenant.organization.slug;
    const path = `/api/cloud/organizations/${org}/sites/${tenant.site.slug}/?confirm=${tenant.site.slug}`;
    const admin = await createUser(platform);
    await grantSite(tenant, admin.user.id, ['admin_site']);
    expect(
      (
        await tenant.owner.post(`/api/cloud/organizations/${org}/members/`, {
          user_id: admin.user.id,
          role: 'admin',
        })
      ).status,
    ).toBe(200);
    expect((await admin.api.delete(path)).status).toBe(403);
    const stranger = await createUser(platform);
    expect((await stranger.api.delete(path)).status).toBe(404);
    expect((await tenant.owner.delete(path)).status).toBe(204);
    expect((await tenant.owner.get('/api/apps/')).status).toBe(404);
    expect((await tenant.owner.delete(path)).status).toBe(404);
  });

  it('drops the schema in PostgreSQL and every item of the site; the slug can be taken again', async () => {
    const tenant = await createTenant(platform);
    const site = tenant.site.slug;
    await populatedApp(tenant);
    const sql = platform.deps.sql();
    const schema = siteSchemaName(site);
    expect(await sql`SELECT 1 FROM information_schema.schemata WHERE schema_name = ${schema}`).toHaveLength(
      1,
    );
    const path = `/api/cloud/organizations/${tenant.organization.slug}/sites/${site}/?confirm=${site}`;
    expect((await tenant.owner.delete(path)).status).toBe(204);
    expect(await sql`SELECT 1 FROM information_schema.schemata WHERE schema_name = ${schema}`).toHaveLength(
      0,
    );
    expect(await sql`SELECT 1 FROM platform.data_site_schemas WHERE site = ${site}`).toHaveLength(0);
    for (const pk of [
      `SITE#${site}`,
      roleKeys.catalog(site),
      secretKeys.secrets(site),
      secretKeys.types(site),
      `SITE#${site}#FUNCTIONS`,
      `SITE#${site}#EVENTS`,
      `APPID#${tenant.app.id}`,
    ])
      expect(await stored(pk)).toEqual([]);
    expect(await stored(deletionKeys.partition, deletionKeys.sitesNamed(site))).toEqual([]);
    const again = await tenant.owner.post(`/api/cloud/organizations/${tenant.organization.slug}/sites/`, {
      name: 'Again',
      slug: site,
    });
    expect(again.status).toBe(201);
    expect((await tenant.owner.get('/api/apps/')).body.results).toEqual([]);
  });
});

describe('DELETE /api/cloud/organizations/{org_slug}/', () => {
  it('who may: its owner and superusers; admins 403, strangers 404; everything under it goes', async () => {
    const tenant = await createTenant(platform);
    const org = tenant.organization.slug;
    await populatedApp(tenant);
    const admin = await createUser(platform);
    await grantSite(tenant, admin.user.id, ['admin_site']);
    await tenant.owner.post(`/api/cloud/organizations/${org}/members/`, {
      user_id: admin.user.id,
      role: 'admin',
    });
    expect((await admin.api.delete(`/api/cloud/organizations/${org}/?confirm=${org}`)).status).toBe(403);
    const stranger = await createUser(platform);
    expect((await stranger.api.delete(`/api/cloud/organizations/${org}/?confirm=${org}`)).status).toBe(404);

    expect((await tenant.owner.delete(`/api/cloud/organizations/${org}/?confirm=${org}`)).status).toBe(204);
    expect((await tenant.owner.get(`/api/cloud/organizations/${org}/`)).status).toBe(404);
    expect((await admin.api.get('/api/cloud/organizations/')).body.results).toEqual([]);
    expect(await stored(`ORG#${org}`)).toEqual([]);
    expect(await stored(`SITE#${tenant.site.slug}`)).toEqual([]);
    const sql = platform.deps.sql();
    expect(
      await sql`SELECT 1 FROM information_schema.schemata WHERE schema_name = ${siteSchemaName(tenant.site.slug)}`,
    ).toHaveLength(0);
    expect(await stored(deletionKeys.partition, deletionKeys.organizationsNamed(org))).toEqual([]);
    // The owner owns nothing now: it may erase itself, and the slug is free.
    expect((await tenant.owner.post('/api/cloud/organizations/', { name: 'Again', slug: org })).status).toBe(
      201,
    );
  });

  it('with its cleanup owed (DELETION_STEPS_PER_REQUEST 1): answers 202, and none of its sites is served', async () => {
    const bounded = await startTestPlatform({
      DELETION_STEPS_PER_REQUEST: '1',
      DELETIONS_IN_BACKGROUND: 'false',
    });
    try {
      const tenant = await createTenant(bounded);
      const org = tenant.organization.slug;
      await createTable(tenant.owner, tenant.app.slug, 'notes', {
        fields: [{ name: 'text', type: 'string' }],
      });
      const deleted = await tenant.owner.delete(`/api/cloud/organizations/${org}/?confirm=${org}`);
      expect(deleted.status).toBe(202);
      expect((await tenant.owner.get('/api/apps/')).status).toBe(404);
      expect((await tenant.owner.get(dataPath(tenant.app.slug, 'notes'))).status).toBe(404);
      expect((await tenant.owner.get(`/api/cloud/organizations/${org}/`)).status).toBe(404);
      // The slug is not taken again while its cleanup is owed; each try does a step, and then it is free.
      let status = 409;
      for (let attempt = 0; attempt < 100 && status === 409; attempt++)
        status = (await tenant.owner.post('/api/cloud/organizations/', { name: 'Again', slug: org })).status;
      expect(status).toBe(201);
      expect(
        await bounded.deps.sql()`SELECT 1 FROM information_schema.schemata
        WHERE schema_name = ${siteSchemaName(tenant.site.slug)}`,
      ).toHaveLength(0);
    } finally {
      await bounded.stop();
    }
  });

  it('a superuser may delete any organization', async () => {
    const tenant = await createTenant(platform);
    const org = tenant.organization.slug;
    expect((await platform.adminApi.delete(`/api/cloud/organizations/${org}/?confirm=${org}`)).status).toBe(
      204,
    );
    expect((await tenant.owner.get(`/api/cloud/organizations/${org}/`)).status).toBe(404);
    expect(
      (
        await tenant.owner.delete(
          `/api/cloud/users/${tenant.ownerUser.id}/?confirm=${tenant.ownerUser.username}`,
        )
      ).status,
    ).toBe(204);
  });
});
