import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { latestToken } from '../support/invitation-mail';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, createUser, type Tenant, unique } from '../support/tenant';

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform({}, {}, { dataPlane: false });
});
afterAll(async () => {
  await platform.stop();
});

const orgPath = (tenant: Tenant) => `/api/cloud/organizations/${tenant.organization.slug}`;
const invitations = (tenant: Tenant) => `${orgPath(tenant)}/invitations/`;
const groupMembers = (tenant: Tenant, slug: string) => `${orgPath(tenant)}/groups/${slug}/members/`;
const accept = (token: string) => `/api/cloud/invitations/${token}/accept/`;
const acceptance = { password: 'Copper-Lantern-Meadow-83', first_name: 'In', last_name: 'Vitee' };

async function makeGroup(tenant: Tenant, name: string): Promise<string> {
  const response = await tenant.owner.post(`${orgPath(tenant)}/groups/`, { name });
  expect(response.status).toBe(201);
  return response.body.slug;
}

async function invite(tenant: Tenant, email: string, config: unknown) {
  const response = await tenant.owner.post(invitations(tenant), {
    invitee_identifier: email,
    invitation_config: config,
  });
  expect(response.status).toBe(201);
  // The token only the e-mail carries.
  const token = latestToken(platform, email);
  return { ...(response.body as { uuid: string; config: { group: string[] } }), token };
}

/** The groups the organization's member list shows for a user. */
async function groupsOf(tenant: Tenant, userId: number): Promise<string[]> {
  const list = await tenant.owner.get(`${orgPath(tenant)}/members/?page_size=100`);
  const row = list.body.results.find((m: { user_id: number }) => m.user_id === userId);
  return row ? row.groups.map((g: { slug: string }) => g.slug) : [];
}

describe('an invitation naming groups', () => {
  it('accepts existing groups by name, ignoring case, and shows their names as the organization spells them', async () => {
    const tenant = await createTenant(platform);
    await makeGroup(tenant, 'Editors');
    await makeGroup(tenant, 'Reviewers');
    const made = await invite(tenant, `${unique('g')}@example.com`, {
      group: ['editors', 'Reviewers', 'EDITORS'],
    });
    expect(made.config.group).toEqual(['Editors', 'Reviewers']);
    const shown = await tenant.owner.get(`${invitations(tenant)}${made.uuid}/`);
    expect(shown.body.config.group).toEqual(['Editors', 'Reviewers']);
    expect(shown.body).not.toHaveProperty('group_refs');
  });

  it('is refused with 400 naming every group the organization does not have; nothing is created', async () => {
    const tenant = await createTenant(platform);
    const other = await createTenant(platform);
    await makeGroup(tenant, 'Editors');
    // A group of another organization is unknown here.
    await makeGroup(other, 'Designers');
    const email = `${unique('g')}@example.com`;
    const response = await tenant.owner.post(invitations(tenant), {
      invitee_identifier: email,
      invitation_config: { group: ['Editors', 'Designers', 'ghosts'] },
    });
    expect(response.status).toBe(400);
    expect(response.body.invitation_config).toEqual([
      'Group "Designers" does not exist in this organization.',
      'Group "ghosts" does not exist in this organization.',
    ]);
    expect((await tenant.owner.get(invitations(tenant))).body.count).toBe(0);
  });

  it('may name at most 20 groups', async () => {
    const tenant = await createTenant(platform);
    const response = await tenant.owner.post(invitations(tenant), {
      invitee_identifier: `${unique('g')}@example.com`,
      invitation_config: { group: Array.from({ length: 21 }, (_, i) => `group ${i}`) },
    });
    expect(response.status).toBe(400);
    expect(Object.keys(response.body)).toEqual(['invitation_config.group']);
  });
});

describe('accepting an invitation with groups', () => {
  it('puts a new invitee in the groups, with the membership, in the acceptance', async () => {
    const tenant = await createTenant(platform);
    const editors = await makeGroup(tenant, 'Editors');
    const reviewers = await makeGroup(tenant, 'Reviewers');
    await makeGroup(tenant, 'Bystanders');
    const made = await invite(tenant, `${unique('new')}@example.com`, { group: ['Editors', 'Reviewers'] });
    const accepted = await platform.api.post(accept(made.token), acceptance);
    expect(accepted.status).toBe(200);
    const userId = accepted.body.user.id;
    expect((await groupsOf(tenant, userId)).sort()).toEqual([editors, reviewers].sort());
    const listed = await tenant.owner.get(groupMembers(tenant, editors));
    expect(listed.body.results.map((m: { user_id: number }) => m.user_id)).toEqual([userId]);
  });

  it('keeps an existing member in a group it was already in, and adds the others', async () => {
    const tenant = await createTenant(platform);
    const { user } = await createUser(platform);
    await platform.adminApi.post(`${orgPath(tenant)}/members/`, { user_id: user.id });
    const editors = await makeGroup(tenant, 'Editors');
    const ops = await makeGroup(tenant, 'Ops');
    const before = await tenant.owner.post(groupMembers(tenant, editors), { user_id: user.id });
    const made = await invite(tenant, user.email, { group: ['Editors', 'Ops'] });
    expect((await platform.api.post(accept(made.token), acceptance)).status).toBe(200);
    expect((await groupsOf(tenant, user.id)).sort()).toEqual([editors, ops].sort());
    const listed = await tenant.owner.get(groupMembers(tenant, editors));
    expect(listed.body.results[0].added_at).toBe(before.body.added_at);
  });

  it('assigns a group renamed since the invitation, and skips one deleted since, even if remade with its name', async () => {
    const tenant = await createTenant(platform);
    const renamed = await makeGroup(tenant, 'Old Name');
    const deleted = await makeGroup(tenant, 'Short Lived');
    const made = await invite(tenant, `${unique('late')}@example.com`, {
      group: ['Old Name', 'Short Lived'],
    });
    await tenant.owner.patch(`${orgPath(tenant)}/groups/${renamed}/`, { name: 'New Name' });
    expect((await tenant.owner.delete(`${orgPath(tenant)}/groups/${deleted}/`)).status).toBe(204);
    const remade = await makeGroup(tenant, 'Short Lived');
    expect(remade).toBe(deleted);
    const accepted = await platform.api.post(accept(made.token), acceptance);
    expect(accepted.status).toBe(200);
    expect(await groupsOf(tenant, accepted.body.user.id)).toEqual([renamed]);
    expect((await tenant.owner.get(groupMembers(tenant, remade))).body.count).toBe(0);
  });

  it('assigns nothing when the acceptance is refused, and everything once it passes', async () => {
    const tenant = await createTenant(platform);
    const crew = await makeGroup(tenant, 'Crew');
    const made = await invite(tenant, `${unique('weak')}@example.com`, { group: ['Crew'] });
    const weak = await platform.api.post(accept(made.token), { ...acceptance, password: 'password1' });
    expect(weak.status).toBe(400);
    expect((await tenant.owner.get(groupMembers(tenant, crew))).body.count).toBe(0);
    const answers = await Promise.all([
      platform.api.post(accept(made.token), acceptance),
      platform.api.post(accept(made.token), acceptance),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 410]);
    expect((await tenant.owner.get(groupMembers(tenant, crew))).body.count).toBe(1);
  });

  it('grants a site named twice once, with both lists of permissions', async () => {
    const tenant = await createTenant(platform);
    const made = await invite(tenant, `${unique('twice')}@example.com`, {
      site: [
        { slug: tenant.site.slug, permissions: ['view_site'] },
        { slug: tenant.site.slug, permissions: ['change_site'] },
      ],
    });
    expect(made.config).toMatchObject({ site: [{ slug: tenant.site.slug }] });
    const accepted = await platform.api.post(accept(made.token), acceptance);
    expect(accepted.status).toBe(200);
    const perms = await tenant.owner.get(`${orgPath(tenant)}/sites/${tenant.site.slug}/permissions/`);
    const grant = perms.body.find((g: { user_id: number }) => g.user_id === accepted.body.user.id);
    expect(grant.permissions.sort()).toEqual(['change_site', 'view_site']);
  });
});
