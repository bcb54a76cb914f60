import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ApiClient } from '../support/client';
import { strictClock } from '../support/clock';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, type Tenant } from '../support/tenant';

let platform: TestPlatform;
let tenant: Tenant;
let owner: ApiClient;
let viewer: string;
let editor: string;

const { clock } = strictClock();

beforeAll(async () => {
  platform = await startTestPlatform({}, { clock }, { dataPlane: false });
});
afterAll(async () => {
  await platform.stop();
});
beforeEach(async () => {
  tenant = await createTenant(platform);
  owner = tenant.owner;
  viewer = (await owner.post(`/api/app/${tenant.app.slug}/roles`, { name: 'Viewer' })).body.data.slug;
  editor = (
    await owner.post(`/api/app/${tenant.app.slug}/roles`, { name: 'Editor', parent_role_slug: viewer })
  ).body.data.slug;
});

describe('POST /api/roles/', () => {
  it('returns 201 with the site role and its application roles', async () => {
    const response = await owner.post('/api/roles/', { name: 'Content Team', role_slugs: [viewer, editor] });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      status: 'success',
      message: 'Site role created successfully',
      data: {
        id: expect.any(Number),
        name: 'Content Team',
        slug: 'content-team',
        description: '',
        created_at: expect.stringMatching(/Z$/),
        updated_at: expect.stringMatching(/Z$/),
      },
    });
    expect(Object.keys(response.body.data).sort()).toEqual(
      ['app_roles', 'created_at', 'description', 'id', 'name', 'slug', 'updated_at'].sort(),
    );
    expect(response.body.data.app_roles.map((role: { slug: string }) => role.slug)).toEqual([editor, viewer]);
    expect(response.body.data.app_roles[1]).toMatchObject({
      slug: viewer,
      is_parent: true,
      app_slug: tenant.app.slug,
      app_name: tenant.app.name,
      app_id: tenant.app.id,
    });
  });

  it('bundles application roles of several apps', async () => {
    const other = await owner.post('/api/apps/', { name: 'Second App' });
    const foreign = await owner.post(`/api/app/${other.body.slug}/roles`, { name: 'Admin' });
    const response = await owner.post('/api/roles/', {
      name: 'Everything',
      role_slugs: [viewer, foreign.body.data.slug],
    });
    expect(response.status).toBe(201);
    expect(response.body.data.app_roles.map((role: { app_slug: string }) => role.app_slug).sort()).toEqual(
      [tenant.app.slug, other.body.slug].sort(),
    );
  });

  it('creates a site role without application roles', async () => {
    const response = await owner.post('/api/roles/', { name: 'Empty' });
    expect(response.status).toBe(201);
    expect(response.body.data.app_roles).toEqual([]);
  });

  it('returns 409 when a site role with the same name exists', async () => {
    await owner.post('/api/roles/', { name: 'Auditors' });
    const response = await owner.post('/api/roles/', { name: 'AUDITORS' });
    expect(response.status).toBe(409);
    expect(response.body).toEqual({
      error: 'Role already exists',
      detail: 'A site role named "AUDITORS" already exists.',
      code: 'site_role_exists',
    });
  });

  it('returns 409 when the slug from the name is an application role slug', async () => {
    const response = await owner.post('/api/roles/', { name: viewer });
    expect(response.status).toBe(409);
    expect(response.body.code).toBe('role_slug_taken');
    expect(response.body.detail).toContain(`"${viewer}"`);
  });

  it('returns 400 when role_slugs names a role that does not exist or a site role', async () => {
    await owner.post('/api/roles/', { name: 'Flat' });
    const response = await owner.post('/api/roles/', {
      name: 'Nested',
      role_slugs: [viewer, 'flat', 'ghost'],
    });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      error: 'Invalid role slugs',
      detail:
        'Not application roles of this site: "flat", "ghost". A site role bundles application roles only.',
      code: 'invalid_role_slugs',
    });
  });

  it('returns 400 when the name is missing or longer than 100 characters', async () => {
    expect((await owner.post('/api/roles/', {})).status).toBe(400);
    const response = await owner.post('/api/roles/', { name: 's'.repeat(101) });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('validation_error');
  });
});

describe('GET /api/roles/', () => {
  beforeEach(async () => {
    for (const name of ['Zulu', 'alpha', 'Mike']) await owner.post('/api/roles/', { name });
  });

  it('returns the list envelope ordered by name by default', async () => {
    const response = await owner.get('/api/roles/');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      status: 'success',
      message: 'Site roles retrieved successfully',
      total: 3,
    });
    expect(response.body.data.map((role: { name: string }) => role.name)).toEqual(['alpha', 'Mike', 'Zulu']);
  });

  it('leaves application roles out', async () => {
    const response = await owner.get('/api/roles/');
    expect(response.body.data.map((role: { slug: string }) => role.slug)).not.toContain(viewer);
  });

  it('searches, orders and pages', async () => {
    expect(
      (await owner.get('/api/roles/?search=ZUL')).body.data.map((r: { name: string }) => r.name),
    ).toEqual(['Zulu']);
    expect(
      (await owner.get('/api/roles/?ordering=-created_at')).body.data.map((r: { name: string }) => r.name),
    ).toEqual(['Mike', 'alpha', 'Zulu']);
    const page = await owner.get('/api/roles/?page=2&page_size=2');
    expect(page.body).toMatchObject({ total: 3 });
    expect(page.body.data.map((r: { name: string }) => r.name)).toEqual(['Zulu']);
  });
});

describe('GET /api/roles/{slug}', () => {
  it('returns the site role in the single-item envelope', async () => {
    const created = await owner.post('/api/roles/', { name: 'Team', role_slugs: [viewer] });
    const response = await owner.get('/api/roles/team');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      status: 'success',
      message: 'Site role retrieved successfully',
      data: created.body.data,
    });
  });

  it('returns 404 for an unknown slug and for an application role slug', async () => {
    for (const slug of ['ghost', viewer]) {
      const response = await owner.get(`/api/roles/${slug}`);
      expect(response.status).toBe(404);
      expect(response.body).toEqual({
        error: 'Role not found',
        detail: `No site role with the slug "${slug}" exists in this site.`,
        code: 'role_not_found',
      });
    }
  });
});

describe('PUT /api/roles/{slug}', () => {
  it('renames the role and keeps its slug', async () => {
    await owner.post('/api/roles/', { name: 'Team' });
    const response = await owner.put('/api/roles/team', { name: 'Crew' });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      status: 'success',
      message: 'Site role updated successfully',
      data: { name: 'Crew', slug: 'team' },
    });
  });

  it('frees the old name and takes the new one', async () => {
    await owner.post('/api/roles/', { name: 'Team' });
    await owner.put('/api/roles/team', { name: 'Crew' });
    expect((await owner.post('/api/roles/', { name: 'Crew' })).status).toBe(409);
    // The old name is free, but its slug "team" still names the renamed role.
    const again = await owner.post('/api/roles/', { name: 'Team' });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('role_slug_taken');
  });

  it('replaces the application roles with role_slugs and keeps them when role_slugs is omitted', async () => {
    await owner.post('/api/roles/', { name: 'Team', role_slugs: [viewer] });
    const replaced = await owner.put('/api/roles/team', { role_slugs: [editor] });
    expect(replaced.body.data.app_roles.map((role: { slug: string }) => role.slug)).toEqual([editor]);
    const kept = await owner.put('/api/roles/team', { description: 'Writers' });
    expect(kept.body.data).toMatchObject({ description: 'Writers' });
    expect(kept.body.data.app_roles.map((role: { slug: string }) => role.slug)).toEqual([editor]);
    const emptied = await owner.put('/api/roles/team', { role_slugs: [] });
    expect(emptied.body.data.app_roles).toEqual([]);
  });

  it('returns 409 when the new name is taken by another site role', async () => {
    await owner.post('/api/roles/', { name: 'Team' });
    await owner.post('/api/roles/', { name: 'Crew' });
    const response = await owner.put('/api/roles/team', { name: 'crew' });
    expect(response.status).toBe(409);
    expect(response.body.code).toBe('site_role_exists');
  });

  it('accepts a change of case of its own name', async () => {
    await owner.post('/api/roles/', { name: 'Team' });
    const response = await owner.put('/api/roles/team', { name: 'TEAM' });
    expect(response.status).toBe(200);
    expect(response.body.data.name).toBe('TEAM');
  });

  it('returns 400 for role_slugs that are not application roles', async () => {
    await owner.post('/api/roles/', { name: 'Team' });
    const response = await owner.put('/api/roles/team', { role_slugs: ['ghost'] });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('invalid_role_slugs');
  });

  it('returns 404 when the site role does not exist', async () => {
    const response = await owner.put('/api/roles/ghost', { name: 'Whatever' });
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('role_not_found');
  });
});

describe('DELETE /api/roles/{slug}', () => {
  it('returns 200 with a message and removes the role', async () => {
    await owner.post('/api/roles/', { name: 'Team' });
    const response = await owner.delete('/api/roles/team');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ message: 'Site role "team" deleted successfully' });
    expect((await owner.get('/api/roles/team')).status).toBe(404);
    expect((await owner.post('/api/roles/', { name: 'Team' })).status).toBe(201);
  });

  it('removes every membership of the site role', async () => {
    await owner.post('/api/roles/', { name: 'Team' });
    await owner.post('/api/roles/team/users', { usernames: [tenant.ownerUser.username] });
    await owner.delete('/api/roles/team');
    await owner.post('/api/roles/', { name: 'Team' });
    const users = await owner.get('/api/roles/team/users?include_expired=true');
    expect(users.body.total).toBe(0);
    const mine = await owner.get('/api/users/me/roles?include_expired=true');
    expect(mine.body.data.site_roles).toEqual([]);
  });

  it('returns 404 for an application role slug', async () => {
    const response = await owner.delete(`/api/roles/${viewer}`);
    expect(response.status).toBe(404);
    expect((await owner.get(`/api/app/${tenant.app.slug}/roles/${viewer}`)).status).toBe(200);
  });
});

describe('application role deletion and site roles', () => {
  it('drops a deleted application role from the site roles that bundle it', async () => {
    await owner.post('/api/roles/', { name: 'Team', role_slugs: [viewer, editor] });
    await owner.delete(`/api/app/${tenant.app.slug}/roles/${editor}`);
    const response = await owner.get('/api/roles/team');
    expect(response.body.data.app_roles.map((role: { slug: string }) => role.slug)).toEqual([viewer]);
  });

  it('does not bundle a new role that reuses a deleted role’s slug', async () => {
    await owner.post('/api/roles/', { name: 'Team', role_slugs: [editor] });
    await owner.delete(`/api/app/${tenant.app.slug}/roles/${editor}`);
    await owner.post(`/api/app/${tenant.app.slug}/roles`, { name: 'Editor' });
    const response = await owner.get('/api/roles/team');
    expect(response.body.data.app_roles).toEqual([]);
  });
});
