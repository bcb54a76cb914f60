import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { heldRoles, holdsRole } from '../../shared/roles/access';
import type { ApiClient } from '../support/client';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, createUser, type Tenant } from '../support/tenant';

let platform: TestPlatform;
let tenant: Tenant;
let owner: ApiClient;
/** director > manager > (editor > intern, reviewer); a root "guest"; a site role "staff" bundling manager. */
let slugs: Record<'director' | 'manager' | 'editor' | 'intern' | 'reviewer' | 'guest' | 'staff', string>;

beforeAll(async () => {
  platform = await startTestPlatform({}, {}, { dataPlane: false });
});
afterAll(async () => {
  await platform.stop();
});
beforeEach(async () => {
  tenant = await createTenant(platform);
  owner = tenant.owner;
  const make = async (name: string, parent?: string) =>
    (await owner.post(`/api/app/${tenant.app.slug}/roles`, { name, parent_role_slug: parent })).body.data
      .slug as string;
  const director = await make('Director');
  const manager = await make('Manager', director);
  const editor = await make('Editor', manager);
  const intern = await make('Intern', editor);
  const reviewer = await make('Reviewer', manager);
  const guest = await make('Guest');
  const staff = (await owner.post('/api/roles/', { name: 'Staff', role_slugs: [manager] })).body.data.slug;
  slugs = { director, manager, editor, intern, reviewer, guest, staff };
});

const refs = (...names: (keyof typeof slugs)[]) =>
  names.map((name) => ({ name: name.charAt(0).toUpperCase() + name.slice(1), slug: slugs[name] }));

describe('GET /api/roles/{role_slug}/descendants', () => {
  it('returns every role below, level by level, as {name, slug}', async () => {
    const response = await owner.get(`/api/roles/${slugs.director}/descendants`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      status: 'success',
      message: 'Role descendants retrieved successfully',
      data: refs('manager', 'editor', 'reviewer', 'intern'),
      total: 4,
    });
  });

  it('returns an empty list for a leaf role', async () => {
    const response = await owner.get(`/api/roles/${slugs.intern}/descendants`);
    expect(response.body).toMatchObject({ data: [], total: 0 });
  });

  it('follows a parent change', async () => {
    await owner.put(`/api/app/${tenant.app.slug}/roles/${slugs.editor}`, { parent_role_slug: slugs.guest });
    expect((await owner.get(`/api/roles/${slugs.guest}/descendants`)).body.data).toEqual(
      refs('editor', 'intern'),
    );
    expect((await owner.get(`/api/roles/${slugs.manager}/descendants`)).body.data).toEqual(refs('reviewer'));
  });

  it('returns 400 for a site role', async () => {
    const response = await owner.get(`/api/roles/${slugs.staff}/descendants`);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      error: 'Not an application role',
      detail: `"${slugs.staff}" is a site role; the hierarchy exists for application roles only.`,
      code: 'not_an_application_role',
    });
  });

  it('returns 404 for an unknown role', async () => {
    const response = await owner.get('/api/roles/ghost/descendants');
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('role_not_found');
  });
});

describe('GET /api/roles/{role_slug}/ancestors', () => {
  it('returns every role above, nearest first, as {name, slug}', async () => {
    const response = await owner.get(`/api/roles/${slugs.intern}/ancestors`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      status: 'success',
      message: 'Role ancestors retrieved successfully',
      data: refs('editor', 'manager', 'director'),
      total: 3,
    });
  });

  it('returns an empty list for a root role', async () => {
    expect((await owner.get(`/api/roles/${slugs.director}/ancestors`)).body).toMatchObject({
      data: [],
      total: 0,
    });
  });

  it('returns 400 for a site role', async () => {
    const response = await owner.get(`/api/roles/${slugs.staff}/ancestors`);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('not_an_application_role');
  });

  it('returns 404 for an unknown role', async () => {
    expect((await owner.get('/api/roles/ghost/ancestors')).status).toBe(404);
  });
});

describe('holdsRole', () => {
  const now = () => new Date();
  const holds = async (userId: number, role: string, at = now()) =>
    holdsRole(platform.deps.store, tenant.site.slug, userId, role, at);
  async function member(...roles: string[]) {
    const { user } = await createUser(platform);
    if (roles.length > 0) await owner.post('/api/assign/roles', { roles, usernames: [user.username] });
    return user;
  }

  it('is true for a role held directly and false for one not held', async () => {
    const user = await member(slugs.guest);
    expect(await holds(user.id, slugs.guest)).toBe(true);
    expect(await holds(user.id, slugs.editor)).toBe(false);
  });

  it('grants every role below a held role, and none above it', async () => {
    const user = await member(slugs.manager);
    for (const below of [slugs.manager, slugs.editor, slugs.intern, slugs.reviewer]) {
      expect(await holds(user.id, below)).toBe(true);
    }
    for (const other of [slugs.director, slugs.guest]) expect(await holds(user.id, other)).toBe(false);
  });

  it('grants the bundled roles of a held site role and the roles below them', async () => {
    const user = await member(slugs.staff);
    expect(await holds(user.id, slugs.staff)).toBe(true);
    expect(await holds(user.id, slugs.manager)).toBe(true);
    expect(await holds(user.id, slugs.intern)).toBe(true);
    expect(await holds(user.id, slugs.director)).toBe(false);
  });

  it('does not grant a site role to a user holding all of its application roles', async () => {
    const user = await member(slugs.director);
    expect(await holds(user.id, slugs.staff)).toBe(false);
  });

  it('counts a membership until its expiry and not from then on', async () => {
    const { user } = await createUser(platform);
    const expiresAt = new Date(Date.now() + 60_000);
    await owner.post('/api/assign/roles', {
      roles: [slugs.manager],
      usernames: [user.username],
      expires_at: expiresAt.toISOString(),
    });
    expect(await holds(user.id, slugs.editor, new Date(expiresAt.getTime() - 1))).toBe(true);
    expect(await holds(user.id, slugs.editor, expiresAt)).toBe(false);
    expect(await holds(user.id, slugs.manager, new Date(expiresAt.getTime() + 3600_000))).toBe(false);
  });

  it('stops granting at once when the membership is revoked', async () => {
    const user = await member(slugs.director);
    await owner.delete('/api/revoke/roles', { roles: [slugs.director], usernames: [user.username] });
    expect(await holds(user.id, slugs.intern)).toBe(false);
  });

  it('follows the hierarchy as it changes', async () => {
    const user = await member(slugs.guest);
    expect(await holds(user.id, slugs.reviewer)).toBe(false);
    await owner.put(`/api/app/${tenant.app.slug}/roles/${slugs.reviewer}`, { parent_role_slug: slugs.guest });
    expect(await holds(user.id, slugs.reviewer)).toBe(true);
  });

  it('is false for an unknown role, and for the same slug in another site', async () => {
    const user = await member(slugs.director);
    expect(await holds(user.id, 'ghost')).toBe(false);
    const other = await createTenant(platform);
    expect(await holdsRole(platform.deps.store, other.site.slug, user.id, slugs.director, now())).toBe(false);
  });

  it('lists every role held with heldRoles', async () => {
    const user = await member(slugs.editor, slugs.staff);
    const held = await heldRoles(platform.deps.store, tenant.site.slug, user.id, now());
    expect([...held].sort()).toEqual(
      [slugs.editor, slugs.intern, slugs.staff, slugs.manager, slugs.reviewer].sort(),
    );
  });
});
