import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ApiClient } from '../support/client';
import { strictClock } from '../support/clock';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, type Tenant } from '../support/tenant';

let platform: TestPlatform;
let tenant: Tenant;
let owner: ApiClient;
let app: string;

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
  app = tenant.app.slug;
});

const roles = () => `/api/app/${app}/roles`;
const create = (body: Record<string, unknown>) => owner.post(roles(), body);

describe('POST /api/app/{app_slug}/roles', () => {
  it('returns 201 with the application role in the single-item envelope', async () => {
    const response = await create({ name: 'Editor', description: 'Edits things' });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      status: 'success',
      message: 'Application role created successfully',
      data: {
        id: expect.any(Number),
        name: 'Editor',
        slug: `${app}-editor`,
        description: 'Edits things',
        is_parent: false,
        app_id: tenant.app.id,
        app_name: tenant.app.name,
        app_slug: app,
        parent_id: null,
        parent_role_slug: null,
        created_at: expect.stringMatching(/Z$/),
        updated_at: expect.stringMatching(/Z$/),
      },
    });
  });

  it('makes the slug from the app slug and the name', async () => {
    const response = await create({ name: 'Content Manager (EU)' });
    expect(response.body.data.slug).toBe(`${app}-content-manager-eu`);
  });

  it('creates a child role under parent_role_slug and marks the parent as a parent', async () => {
    const parent = await create({ name: 'Manager' });
    const child = await create({ name: 'Editor', parent_role_slug: parent.body.data.slug });
    expect(child.status).toBe(201);
    expect(child.body.data).toMatchObject({
      parent_id: parent.body.data.id,
      parent_role_slug: parent.body.data.slug,
    });
    const reread = await owner.get(`${roles()}/${parent.body.data.slug}`);
    expect(reread.body.data.is_parent).toBe(true);
  });

  it('defaults the description to an empty string', async () => {
    const response = await create({ name: 'Viewer' });
    expect(response.body.data.description).toBe('');
  });

  it('returns 409 when a role with the same name exists in the app', async () => {
    await create({ name: 'Editor' });
    const response = await create({ name: 'editor' });
    expect(response.status).toBe(409);
    expect(response.body).toEqual({
      error: 'Role already exists',
      detail: `A role named "Editor" already exists in the app "${app}".`,
      code: 'role_exists',
    });
  });

  it('allows the same name in another app of the site', async () => {
    const other = await owner.post('/api/apps/', { name: 'Other App' });
    await create({ name: 'Editor' });
    const response = await owner.post(`/api/app/${other.body.slug}/roles`, { name: 'Editor' });
    expect(response.status).toBe(201);
    expect(response.body.data.slug).toBe(`${other.body.slug}-editor`);
  });

  it('returns 409 when the generated slug is already used by a role of another app', async () => {
    // App "x" with role "y z" and app "x-y" with role "z" would both be "x-y-z".
    const first = await owner.post('/api/apps/', { name: 'Acme', slug: 'acme' });
    const second = await owner.post('/api/apps/', { name: 'Acme Shop', slug: 'acme-shop' });
    expect([first.status, second.status]).toEqual([201, 201]);
    await owner.post('/api/app/acme/roles', { name: 'Shop Admin' });
    const response = await owner.post('/api/app/acme-shop/roles', { name: 'Admin' });
    expect(response.status).toBe(409);
    expect(response.body.code).toBe('role_slug_taken');
    expect(response.body.detail).toContain('"acme-shop-admin"');
  });

  it('returns 409 when the generated slug is already used by a site role', async () => {
    await owner.post('/api/roles/', { name: `${app} Auditor` });
    const response = await create({ name: 'Auditor' });
    expect(response.status).toBe(409);
    expect(response.body.code).toBe('role_slug_taken');
    expect(response.body.detail).toContain('site role');
  });

  it('returns 400 when the name is missing, empty or longer than 100 characters', async () => {
    for (const body of [{}, { name: '' }, { name: 'x'.repeat(101) }]) {
      const response = await create(body);
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ error: 'Validation failed', code: 'validation_error' });
      expect(response.body.detail).toMatch(/^name: /);
    }
  });

  it('accepts a name of exactly 100 characters', async () => {
    const response = await create({ name: 'n'.repeat(100) });
    expect(response.status).toBe(201);
  });

  it('returns 400 when the name has no letter or digit to make a slug from', async () => {
    const response = await create({ name: '!!!' });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('invalid_role_name');
  });

  it('returns 400 when the description is longer than 1000 characters', async () => {
    const response = await create({ name: 'Editor', description: 'd'.repeat(1001) });
    expect(response.status).toBe(400);
    expect(response.body.detail).toMatch(/^description: /);
  });

  it('returns 400 when the parent role does not exist in the app', async () => {
    const response = await create({ name: 'Editor', parent_role_slug: 'nope' });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('parent_role_not_found');
  });

  it('returns 400 when the parent role belongs to another app', async () => {
    const other = await owner.post('/api/apps/', { name: 'Other App' });
    const foreign = await owner.post(`/api/app/${other.body.slug}/roles`, { name: 'Boss' });
    const response = await create({ name: 'Editor', parent_role_slug: foreign.body.data.slug });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('parent_role_not_found');
  });

  it('returns 404 for an app that is not in the site', async () => {
    const response = await owner.post('/api/app/no-such-app/roles', { name: 'Editor' });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({
      error: 'App not found',
      detail: 'No app with the slug "no-such-app" exists in this site.',
      code: 'app_not_found',
    });
  });
});

describe('GET /api/app/{app_slug}/roles', () => {
  beforeEach(async () => {
    for (const name of ['Charlie', 'alpha', 'Bravo']) await create({ name });
  });

  it('returns the list envelope ordered by name by default', async () => {
    const response = await owner.get(roles());
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      status: 'success',
      message: 'Application roles retrieved successfully',
      total: 3,
    });
    expect(response.body.data.map((role: { name: string }) => role.name)).toEqual([
      'alpha',
      'Bravo',
      'Charlie',
    ]);
    expect(Object.keys(response.body.data[0]).sort()).toEqual(
      [
        'app_id',
        'app_name',
        'app_slug',
        'created_at',
        'description',
        'id',
        'is_parent',
        'name',
        'parent_id',
        'parent_role_slug',
        'slug',
        'updated_at',
      ].sort(),
    );
  });

  it('orders descending with a - prefix', async () => {
    const response = await owner.get(`${roles()}?ordering=-name`);
    expect(response.body.data.map((role: { name: string }) => role.name)).toEqual([
      'Charlie',
      'Bravo',
      'alpha',
    ]);
  });

  it('orders by created_at and updated_at', async () => {
    const created = await owner.get(`${roles()}?ordering=created_at`);
    expect(created.body.data.map((role: { name: string }) => role.name)).toEqual([
      'Charlie',
      'alpha',
      'Bravo',
    ]);
    await owner.put(`${roles()}/${app}-charlie`, { description: 'touched' });
    const updated = await owner.get(`${roles()}?ordering=-updated_at`);
    expect(updated.body.data[0].name).toBe('Charlie');
  });

  it('searches names partially and case-insensitively', async () => {
    const response = await owner.get(`${roles()}?search=RAV`);
    expect(response.body.total).toBe(1);
    expect(response.body.data[0].name).toBe('Bravo');
  });

  it('pages with page and page_size, total counting every match', async () => {
    const response = await owner.get(`${roles()}?page=2&page_size=2`);
    expect(response.body.total).toBe(3);
    expect(response.body.data.map((role: { name: string }) => role.name)).toEqual(['Charlie']);
  });

  it('defaults page_size to 20', async () => {
    for (let i = 0; i < 20; i++) await create({ name: `Extra ${i}` });
    const response = await owner.get(roles());
    expect(response.body.total).toBe(23);
    expect(response.body.data).toHaveLength(20);
  });

  it('returns 400 for a page_size above 100 or an unknown ordering', async () => {
    expect((await owner.get(`${roles()}?page_size=101`)).status).toBe(400);
    const response = await owner.get(`${roles()}?ordering=slug`);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('validation_error');
  });

  it("lists only this app's roles", async () => {
    const other = await owner.post('/api/apps/', { name: 'Other App' });
    await owner.post(`/api/app/${other.body.slug}/roles`, { name: 'Delta' });
    const response = await owner.get(roles());
    expect(response.body.total).toBe(3);
  });
});

describe('GET /api/app/{app_slug}/roles/{role_slug}', () => {
  it('returns the role in the single-item envelope', async () => {
    const role = await create({ name: 'Editor' });
    const response = await owner.get(`${roles()}/${role.body.data.slug}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      status: 'success',
      message: 'Application role retrieved successfully',
      data: role.body.data,
    });
  });

  it('returns 404 when the role does not exist', async () => {
    const response = await owner.get(`${roles()}/${app}-ghost`);
    expect(response.status).toBe(404);
    expect(response.body).toEqual({
      error: 'Role not found',
      detail: `No role with the slug "${app}-ghost" exists in this site.`,
      code: 'role_not_found',
    });
  });

  it('returns 404 for a role of another app under this app', async () => {
    const other = await owner.post('/api/apps/', { name: 'Other App' });
    const foreign = await owner.post(`/api/app/${other.body.slug}/roles`, { name: 'Boss' });
    const response = await owner.get(`${roles()}/${foreign.body.data.slug}`);
    expect(response.status).toBe(404);
  });

  it('returns 404 for a site role slug', async () => {
    const siteRole = await owner.post('/api/roles/', { name: 'Auditors' });
    const response = await owner.get(`${roles()}/${siteRole.body.data.slug}`);
    expect(response.status).toBe(404);
  });
});

describe('PUT /api/app/{app_slug}/roles/{role_slug}', () => {
  it('changes the description and keeps the parent when parent_role_slug is omitted', async () => {
    const parent = await create({ name: 'Manager' });
    const role = await create({ name: 'Editor', parent_role_slug: parent.body.data.slug });
    const response = await owner.put(`${roles()}/${role.body.data.slug}`, { description: 'New text' });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      status: 'success',
      message: 'Application role updated successfully',
      data: { description: 'New text', parent_role_slug: parent.body.data.slug, name: 'Editor' },
    });
  });

  it('keeps the parent when parent_role_slug is null', async () => {
    const parent = await create({ name: 'Manager' });
    const role = await create({ name: 'Editor', parent_role_slug: parent.body.data.slug });
    const response = await owner.put(`${roles()}/${role.body.data.slug}`, { parent_role_slug: null });
    expect(response.body.data.parent_role_slug).toBe(parent.body.data.slug);
  });

  it('moves the role to the root when parent_role_slug is an empty string', async () => {
    const parent = await create({ name: 'Manager' });
    const role = await create({ name: 'Editor', parent_role_slug: parent.body.data.slug });
    const response = await owner.put(`${roles()}/${role.body.data.slug}`, { parent_role_slug: '' });
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ parent_id: null, parent_role_slug: null });
    const former = await owner.get(`${roles()}/${parent.body.data.slug}`);
    expect(former.body.data.is_parent).toBe(false);
  });

  it('moves the role under another parent', async () => {
    const parent = await create({ name: 'Manager' });
    const role = await create({ name: 'Editor' });
    const response = await owner.put(`${roles()}/${role.body.data.slug}`, {
      parent_role_slug: parent.body.data.slug,
    });
    expect(response.body.data).toMatchObject({
      parent_id: parent.body.data.id,
      parent_role_slug: parent.body.data.slug,
    });
  });

  it('updates updated_at and leaves created_at', async () => {
    const role = await create({ name: 'Editor' });
    const response = await owner.put(`${roles()}/${role.body.data.slug}`, { description: 'changed' });
    expect(response.body.data.created_at).toBe(role.body.data.created_at);
    expect(response.body.data.updated_at >= role.body.data.updated_at).toBe(true);
  });

  it('returns 400 when the body sends name, even unchanged', async () => {
    const role = await create({ name: 'Editor' });
    for (const name of ['Renamed', 'Editor']) {
      const response = await owner.put(`${roles()}/${role.body.data.slug}`, { name });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        error: 'Role name cannot be changed',
        detail: 'The name of an application role cannot be changed.',
        code: 'role_name_immutable',
      });
    }
  });

  it('returns 400 when the new parent is the role itself', async () => {
    const role = await create({ name: 'Editor' });
    const response = await owner.put(`${roles()}/${role.body.data.slug}`, {
      parent_role_slug: role.body.data.slug,
    });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('role_hierarchy_cycle');
  });

  it('returns 400 when the new parent is a descendant of the role', async () => {
    const top = await create({ name: 'Top' });
    const middle = await create({ name: 'Middle', parent_role_slug: top.body.data.slug });
    const bottom = await create({ name: 'Bottom', parent_role_slug: middle.body.data.slug });
    const response = await owner.put(`${roles()}/${top.body.data.slug}`, {
      parent_role_slug: bottom.body.data.slug,
    });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      error: 'Invalid role hierarchy',
      detail: `"${bottom.body.data.slug}" cannot be the parent of "${top.body.data.slug}": it is "${top.body.data.slug}" itself or one of its descendants.`,
      code: 'role_hierarchy_cycle',
    });
    const unchanged = await owner.get(`${roles()}/${top.body.data.slug}`);
    expect(unchanged.body.data.parent_role_slug).toBeNull();
  });

  it('refuses one of two concurrent moves that together would close a cycle', async () => {
    const a = (await create({ name: 'A' })).body.data.slug;
    const b = (await create({ name: 'B' })).body.data.slug;
    const [first, second] = await Promise.all([
      owner.put(`${roles()}/${a}`, { parent_role_slug: b }),
      owner.put(`${roles()}/${b}`, { parent_role_slug: a }),
    ]);
    expect([first.status, second.status].sort()).toEqual([200, 400]);
    expect([first.body.code, second.body.code]).toContain('role_hierarchy_cycle');
    const ancestors = await owner.get(`/api/roles/${a}/ancestors`);
    expect(ancestors.body.data.map((role: { slug: string }) => role.slug)).not.toContain(a);
  });

  it('returns 400 when the new parent does not exist', async () => {
    const role = await create({ name: 'Editor' });
    const response = await owner.put(`${roles()}/${role.body.data.slug}`, {
      parent_role_slug: `${app}-nope`,
    });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('parent_role_not_found');
  });

  it('returns 400 for a description longer than 1000 characters', async () => {
    const role = await create({ name: 'Editor' });
    const response = await owner.put(`${roles()}/${role.body.data.slug}`, { description: 'd'.repeat(1001) });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('validation_error');
  });

  it('returns 404 when the role does not exist', async () => {
    const response = await owner.put(`${roles()}/${app}-ghost`, { description: 'x' });
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('role_not_found');
  });
});

describe('DELETE /api/app/{app_slug}/roles/{role_slug}', () => {
  /** top > middle > (bottom-a, bottom-b) */
  async function tree() {
    const top = (await create({ name: 'Top' })).body.data.slug as string;
    const middle = (await create({ name: 'Middle', parent_role_slug: top })).body.data.slug as string;
    const bottomA = (await create({ name: 'Bottom A', parent_role_slug: middle })).body.data.slug as string;
    const bottomB = (await create({ name: 'Bottom B', parent_role_slug: middle })).body.data.slug as string;
    return { top, middle, bottomA, bottomB };
  }

  it('re-parents the children to the deleted role’s parent by default and says one role was deleted', async () => {
    const { top, middle, bottomA, bottomB } = await tree();
    const response = await owner.delete(`${roles()}/${middle}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      message: 'Application role deleted successfully',
      detail: `Deleted 1 role: "${middle}". 2 child roles moved to "${top}".`,
    });
    for (const slug of [bottomA, bottomB]) {
      const child = await owner.get(`${roles()}/${slug}`);
      expect(child.body.data.parent_role_slug).toBe(top);
    }
    expect((await owner.get(`${roles()}/${middle}`)).status).toBe(404);
  });

  it('moves the children to the root when the deleted role was a root role', async () => {
    const { top, middle } = await tree();
    const response = await owner.delete(`${roles()}/${top}?remove_child_roles=false`);
    expect(response.body.detail).toBe(`Deleted 1 role: "${top}". 1 child role moved to the root.`);
    const child = await owner.get(`${roles()}/${middle}`);
    expect(child.body.data).toMatchObject({ parent_id: null, parent_role_slug: null });
  });

  it('deletes every descendant with remove_child_roles=true and says how many roles were deleted', async () => {
    const { top, middle, bottomA, bottomB } = await tree();
    const response = await owner.delete(`${roles()}/${middle}?remove_child_roles=true`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      message: 'Application role deleted successfully',
      detail: `Deleted 3 roles: "${middle}" and 2 descendant roles.`,
    });
    for (const slug of [middle, bottomA, bottomB])
      expect((await owner.get(`${roles()}/${slug}`)).status).toBe(404);
    const remaining = await owner.get(`${roles()}/${top}`);
    expect(remaining.body.data.is_parent).toBe(false);
  });

  it('deletes a leaf role alone', async () => {
    const { bottomA } = await tree();
    const response = await owner.delete(`${roles()}/${bottomA}?remove_child_roles=true`);
    expect(response.body.detail).toBe(`Deleted 1 role: "${bottomA}" and 0 descendant roles.`);
  });

  it('removes the memberships of deleted roles', async () => {
    const { middle, bottomA } = await tree();
    await owner.post(`/api/roles/${bottomA}/users`, { usernames: [tenant.ownerUser.username] });
    await owner.delete(`${roles()}/${middle}?remove_child_roles=true`);
    const mine = await owner.get('/api/users/me/roles');
    expect(mine.body.data.app_roles).toEqual([]);
  });

  it('frees the slug: a new role of the same name starts without the old memberships', async () => {
    const role = await create({ name: 'Editor' });
    await owner.post(`/api/roles/${role.body.data.slug}/users`, { usernames: [tenant.ownerUser.username] });
    await owner.delete(`${roles()}/${role.body.data.slug}`);
    const again = await create({ name: 'Editor' });
    expect(again.status).toBe(201);
    expect(again.body.data.id).not.toBe(role.body.data.id);
    const users = await owner.get(`/api/roles/${again.body.data.slug}/users`);
    expect(users.body.total).toBe(0);
  });

  it('returns 400 for a remove_child_roles that is not a boolean', async () => {
    const { top } = await tree();
    const response = await owner.delete(`${roles()}/${top}?remove_child_roles=maybe`);
    expect(response.status).toBe(400);
  });

  it('returns 404 when the role does not exist', async () => {
    const response = await owner.delete(`${roles()}/${app}-ghost`);
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('role_not_found');
  });
});
