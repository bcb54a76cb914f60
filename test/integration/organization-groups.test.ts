import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, createUser, type Tenant, unique } from '../support/tenant';

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform({}, {}, { dataPlane: false });
});
afterAll(async () => {
  await platform.stop();
});

const members = (tenant: Tenant) => `/api/cloud/organizations/${tenant.organization.slug}/members/`;
const groups = (tenant: Tenant) => `/api/cloud/organizations/${tenant.organization.slug}/groups/`;
const group = (tenant: Tenant, slug: string) => `${groups(tenant)}${slug}/`;
const groupMembers = (tenant: Tenant, slug: string) => `${group(tenant, slug)}members/`;

/** A tenant with an admin and a plain member, each signed in. */
async function team() {
  const tenant = await createTenant(platform);
  const admin = await createUser(platform);
  const member = await createUser(platform);
  for (const [user, role] of [
    [admin.user, 'admin'],
    [member.user, 'member'],
  ] as const) {
    expect((await platform.adminApi.post(members(tenant), { user_id: user.id, role })).status).toBe(200);
  }
  return { tenant, admin, member };
}

async function makeGroup(tenant: Tenant, name: string, slug?: string) {
  const response = await tenant.owner.post(groups(tenant), { name, ...(slug ? { slug } : {}) });
  expect(response.status).toBe(201);
  return response.body as { id: number; slug: string; name: string };
}

describe('creating, reading, renaming and deleting groups', () => {
  it('creates a group with a slug from its name, gets it and lists it paged', async () => {
    const tenant = await createTenant(platform);
    const made = await makeGroup(tenant, 'Data Editors');
    expect(made).toMatchObject({
      slug: 'data-editors',
      name: 'Data Editors',
      organization_id: tenant.organization.id,
      organization_slug: tenant.organization.slug,
    });
    expect((await tenant.owner.get(group(tenant, 'data-editors'))).body).toEqual(made);
    await makeGroup(tenant, 'Auditors');
    await makeGroup(tenant, 'Billing');
    const first = await tenant.owner.get(`${groups(tenant)}?page_size=2`);
    expect(first.status).toBe(200);
    expect(first.body.count).toBe(3);
    expect(first.body.results.map((g: { slug: string }) => g.slug)).toEqual(['auditors', 'billing']);
    expect(first.body.next).toContain('page=2');
    const second = await tenant.owner.get(`${groups(tenant)}?page_size=2&page=2`);
    expect(second.body.results.map((g: { slug: string }) => g.slug)).toEqual(['data-editors']);
  });

  it('refuses a second group of the same name, ignoring case, with 409; the slug can be given', async () => {
    const tenant = await createTenant(platform);
    await makeGroup(tenant, 'Editors');
    const again = await tenant.owner.post(groups(tenant), { name: 'EDITORS', slug: 'other' });
    expect(again.status).toBe(409);
    expect(again.body.detail).toContain('"EDITORS"');
    // "editors!" makes the slug "editors", which is taken: 409 until a slug is given.
    const sameSlug = await tenant.owner.post(groups(tenant), { name: 'editors!' });
    expect(sameSlug.status).toBe(409);
    expect(sameSlug.body.detail).toContain('slug');
    const given = await tenant.owner.post(groups(tenant), { name: 'editors!', slug: 'loud-editors' });
    expect(given.status).toBe(201);
    expect((await tenant.owner.get(groups(tenant))).body.count).toBe(2);
  });

  it('answers 400 naming the field for a blank name, a name without letters and a bad slug', async () => {
    const tenant = await createTenant(platform);
    const blank = await tenant.owner.post(groups(tenant), { name: '   ' });
    expect(blank.status).toBe(400);
    expect(Object.keys(blank.body)).toEqual(['name']);
    const noLetters = await tenant.owner.post(groups(tenant), { name: '日本' });
    expect(noLetters.status).toBe(400);
    expect(Object.keys(noLetters.body)).toEqual(['slug']);
    const badSlug = await tenant.owner.post(groups(tenant), { name: 'Ops', slug: 'Not A Slug' });
    expect(badSlug.status).toBe(400);
    expect(badSlug.body).toHaveProperty('slug');
    const long = await tenant.owner.get(group(tenant, 'a'.repeat(1500)));
    expect(long.status).toBe(400);
  });

  it('renames a group keeping its slug; the old name is free again and the new one is taken', async () => {
    const tenant = await createTenant(platform);
    await makeGroup(tenant, 'Ops');
    await makeGroup(tenant, 'Support');
    const renamed = await tenant.owner.patch(group(tenant, 'ops'), { name: 'Operations' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ slug: 'ops', name: 'Operations' });
    expect((await tenant.owner.get(group(tenant, 'ops'))).body.name).toBe('Operations');
    const clash = await tenant.owner.patch(group(tenant, 'ops'), { name: 'support' });
    expect(clash.status).toBe(409);
    expect((await tenant.owner.post(groups(tenant), { name: 'Ops', slug: 'ops-2' })).status).toBe(201);
    const caseOnly = await tenant.owner.patch(group(tenant, 'support'), { name: 'SUPPORT' });
    expect(caseOnly.status).toBe(200);
    expect(caseOnly.body.name).toBe('SUPPORT');
    expect((await tenant.owner.post(groups(tenant), { name: 'support', slug: 's' })).status).toBe(409);
    expect((await tenant.owner.patch(group(tenant, 'nope'), { name: 'X' })).status).toBe(404);
  });

  it('deletes a group with 204; its name and slug are free, and a new group of that slug starts empty', async () => {
    const { tenant, member } = await team();
    await makeGroup(tenant, 'Temp');
    expect((await tenant.owner.post(groupMembers(tenant, 'temp'), { user_id: member.user.id })).status).toBe(
      201,
    );
    expect((await tenant.owner.delete(group(tenant, 'temp'))).status).toBe(204);
    expect((await tenant.owner.get(group(tenant, 'temp'))).status).toBe(404);
    expect((await tenant.owner.delete(group(tenant, 'temp'))).status).toBe(404);
    await makeGroup(tenant, 'temp');
    const fresh = await tenant.owner.get(groupMembers(tenant, 'temp'));
    expect(fresh.body.count).toBe(0);
    const listed = await tenant.owner.get(members(tenant));
    const row = listed.body.results.find((m: { user_id: number }) => m.user_id === member.user.id);
    expect(row.groups).toEqual([]);
  });
});

describe('group members', () => {
  it('adds members of the organization (201, then 200), lists them paged, and removes them (204, then 404)', async () => {
    const { tenant, admin, member } = await team();
    await makeGroup(tenant, 'Reviewers');
    const added = await tenant.owner.post(groupMembers(tenant, 'reviewers'), { user_id: member.user.id });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({
      group: 'reviewers',
      user_id: member.user.id,
      user: { id: member.user.id, username: member.user.username },
    });
    const again = await tenant.owner.post(groupMembers(tenant, 'reviewers'), { user_id: member.user.id });
    expect(again.status).toBe(200);
    expect(again.body.added_at).toBe(added.body.added_at);
    await tenant.owner.post(groupMembers(tenant, 'reviewers'), { user_id: admin.user.id });
    const page = await member.api.get(`${groupMembers(tenant, 'reviewers')}?page_size=1`);
    expect(page.status).toBe(200);
    expect(page.body.count).toBe(2);
    expect(page.body.results).toHaveLength(1);
    // A plain member sees names only, as in the organization's member list.
    expect(page.body.results[0].user).not.toHaveProperty('email');
    const removed = await tenant.owner.delete(`${groupMembers(tenant, 'reviewers')}${member.user.id}/`);
    expect(removed.status).toBe(204);
    expect((await tenant.owner.delete(`${groupMembers(tenant, 'reviewers')}${member.user.id}/`)).status).toBe(
      404,
    );
    const left = await tenant.owner.get(groupMembers(tenant, 'reviewers'));
    expect(left.body.results.map((m: { user_id: number }) => m.user_id)).toEqual([admin.user.id]);
  });

  it('refuses users outside the organization, and unknown users, with the same 400 naming user_id', async () => {
    const tenant = await createTenant(platform);
    const outsider = await createUser(platform);
    await makeGroup(tenant, 'Closed');
    const outside = await tenant.owner.post(groupMembers(tenant, 'closed'), { user_id: outsider.user.id });
    const unknown = await tenant.owner.post(groupMembers(tenant, 'closed'), { user_id: 987_654_321 });
    expect(outside.status).toBe(400);
    expect(Object.keys(outside.body)).toEqual(['user_id']);
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual(outside.body);
    expect((await tenant.owner.get(groupMembers(tenant, 'closed'))).body.count).toBe(0);
    const missingGroup = await tenant.owner.post(groupMembers(tenant, 'none'), {
      user_id: tenant.ownerUser.id,
    });
    expect(missingGroup.status).toBe(404);
  });

  it("shows each member's groups in the organization's member list", async () => {
    const { tenant, admin, member } = await team();
    await makeGroup(tenant, 'Writers');
    await makeGroup(tenant, 'Artists');
    for (const slug of ['writers', 'artists']) {
      await tenant.owner.post(groupMembers(tenant, slug), { user_id: member.user.id });
    }
    await tenant.owner.post(groupMembers(tenant, 'writers'), { user_id: admin.user.id });
    const listed = await member.api.get(members(tenant));
    expect(listed.status).toBe(200);
    const groupsOf = (userId: number) =>
      listed.body.results.find((m: { user_id: number }) => m.user_id === userId).groups;
    expect(groupsOf(member.user.id)).toEqual([
      { slug: 'artists', name: 'Artists' },
      { slug: 'writers', name: 'Writers' },
    ]);
    expect(groupsOf(admin.user.id)).toEqual([{ slug: 'writers', name: 'Writers' }]);
    expect(groupsOf(tenant.ownerUser.id)).toEqual([]);
    // The group list reads groups only, not the names and memberships beside them in the partition.
    const listedGroups = await member.api.get(groups(tenant));
    expect(listedGroups.body.results.map((g: { slug: string }) => g.slug)).toEqual(['artists', 'writers']);
    // A rename shows at once.
    await tenant.owner.patch(group(tenant, 'writers'), { name: 'Authors' });
    const after = await member.api.get(members(tenant));
    const row = after.body.results.find((m: { user_id: number }) => m.user_id === admin.user.id);
    expect(row.groups).toEqual([{ slug: 'writers', name: 'Authors' }]);
  });
});

describe('who may read and change groups', () => {
  it('members read; the owner, admins and superusers change; plain members get 403', async () => {
    const { tenant, admin, member } = await team();
    await makeGroup(tenant, 'Shared');
    expect((await member.api.get(groups(tenant))).status).toBe(200);
    expect((await member.api.get(group(tenant, 'shared'))).status).toBe(200);
    expect((await member.api.get(groupMembers(tenant, 'shared'))).status).toBe(200);
    expect((await member.api.post(groups(tenant), { name: 'Mine' })).status).toBe(403);
    expect((await member.api.patch(group(tenant, 'shared'), { name: 'Taken over' })).status).toBe(403);
    expect((await member.api.delete(group(tenant, 'shared'))).status).toBe(403);
    expect((await member.api.post(groupMembers(tenant, 'shared'), { user_id: member.user.id })).status).toBe(
      403,
    );
    expect((await admin.api.post(groups(tenant), { name: unique('ByAdmin') })).status).toBe(201);
    expect((await admin.api.post(groupMembers(tenant, 'shared'), { user_id: member.user.id })).status).toBe(
      201,
    );
    expect((await platform.adminApi.patch(group(tenant, 'shared'), { name: 'Common' })).status).toBe(200);
    expect((await platform.api.get(groups(tenant))).status).toBe(401);
  });
});

describe('groups never leak across organizations', () => {
  it("another organization's owner cannot see or touch a group, even naming its slug under its own organization", async () => {
    const a = await team();
    const b = await createTenant(platform);
    await makeGroup(a.tenant, 'Secret Team');
    await a.tenant.owner.post(groupMembers(a.tenant, 'secret-team'), { user_id: a.member.user.id });
    // B's owner on A's paths: not a member of A, so A is not found.
    for (const response of [
      await b.owner.get(groups(a.tenant)),
      await b.owner.get(group(a.tenant, 'secret-team')),
      await b.owner.get(groupMembers(a.tenant, 'secret-team')),
      await b.owner.patch(group(a.tenant, 'secret-team'), { name: 'Mine' }),
      await b.owner.delete(group(a.tenant, 'secret-team')),
      await b.owner.post(groupMembers(a.tenant, 'secret-team'), { user_id: b.ownerUser.id }),
    ]) {
      expect(response.status).toBe(404);
    }
    // A's slug under B's own organization names nothing.
    expect((await b.owner.get(group(b, 'secret-team'))).status).toBe(404);
    expect((await b.owner.get(groups(b))).body.count).toBe(0);
    // B may use the same name: names are unique per organization only.
    const same = await b.owner.post(groups(b), { name: 'Secret Team' });
    expect(same.status).toBe(201);
    expect((await b.owner.get(groupMembers(b, 'secret-team'))).body.count).toBe(0);
    const aMembers = await a.tenant.owner.get(groupMembers(a.tenant, 'secret-team'));
    expect(aMembers.body.results.map((m: { user_id: number }) => m.user_id)).toEqual([a.member.user.id]);
    // A member of A added to B's group: refused, A's membership does not count in B.
    const cross = await b.owner.post(groupMembers(b, 'secret-team'), { user_id: a.member.user.id });
    expect(cross.status).toBe(400);
  });
});
