import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupKeys } from '../../shared/groups/model';
import { roleKeys } from '../../shared/roles/keys';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, createUser, type Tenant } from '../support/tenant';

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform({}, {}, { dataPlane: false });
});
afterAll(async () => {
  await platform.stop();
});

type Send = TestPlatform['deps']['store']['doc']['send'];

/**
 * The crash between a deletion and the removal of its memberships: the first store call that deletes anything
 * whose key holds `needle` (a BatchWriteItem, DeleteItem or transaction naming it) fails once, as a process dying
 * there would leave it. Every other call goes through.
 */
function crashOnceDeleting(needle: string): { crashed: () => boolean } {
  const doc = platform.deps.store.doc;
  const original = doc.send.bind(doc) as (command: unknown) => Promise<unknown>;
  let crashed = false;
  const deletes = new Set(['BatchWriteCommand', 'DeleteCommand', 'TransactWriteCommand']);
  doc.send = (async (command: { constructor: { name: string }; input: unknown }) => {
    const text = JSON.stringify(command.input);
    if (!crashed && deletes.has(command.constructor.name) && text.includes(needle)) {
      crashed = true;
      doc.send = original as Send;
      throw new Error('injected crash before the memberships were removed');
    }
    return original(command);
  }) as Send;
  return { crashed: () => crashed };
}

/** The items stored in one partition (with a prefix of sort keys), whatever the API shows. */
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

async function withMember(): Promise<{ tenant: Tenant; username: string; userId: number }> {
  const tenant = await createTenant(platform);
  const { user } = await createUser(platform);
  return { tenant, username: user.username, userId: user.id };
}

describe('deleting a role whose membership cleanup crashes', () => {
  it('site role: no membership shows, the next role write finishes the cleanup, and nothing is inherited', async () => {
    const { tenant, username } = await withMember();
    const site = tenant.site.slug;
    const owner = tenant.owner;
    expect((await owner.post('/api/roles/', { name: 'Team' })).status).toBe(201);
    const assigned = await owner.post('/api/roles/team/users', {
      usernames: [username, tenant.ownerUser.username],
    });
    expect(assigned.status).toBe(200);
    expect(await stored(roleKeys.members(site, 'team'))).toHaveLength(2);

    const crash = crashOnceDeleting(`"${roleKeys.members(site, 'team')}"`);
    const deleted = await owner.delete('/api/roles/team');
    expect(crash.crashed()).toBe(true);
    // The deletion committed: it answers as one, and the cleanup is owed, not lost.
    expect(deleted.status).toBe(200);
    expect((await owner.get('/api/roles/team')).status).toBe(404);
    expect((await owner.get('/api/users/me/roles?include_expired=true')).body.data.site_roles).toEqual([]);
    // The crash left at least one membership stored (deletes run side by side: the other may have gone).
    expect((await stored(roleKeys.members(site, 'team'))).length).toBeGreaterThan(0);
    expect(await stored(roleKeys.catalog(site), 'GONE#')).toHaveLength(1);

    // A new role with the same name: the pending cleanup runs first, and the new role starts empty.
    expect((await owner.post('/api/roles/', { name: 'Team' })).status).toBe(201);
    expect(await stored(roleKeys.members(site, 'team'))).toEqual([]);
    expect(await stored(roleKeys.catalog(site), 'GONE#')).toEqual([]);
    const users = await owner.get('/api/roles/team/users?include_expired=true');
    expect(users.body.total).toBe(0);
    expect((await owner.get('/api/users/me/roles?include_expired=true')).body.data.site_roles).toEqual([]);
  });

  it('application role (with its child): the cleanup of both is finished by a later deletion', async () => {
    const { tenant, username } = await withMember();
    const site = tenant.site.slug;
    const owner = tenant.owner;
    const roles = `/api/app/${tenant.app.slug}/roles`;
    const parent = (await owner.post(roles, { name: 'editors' })).body.data.slug as string;
    const child = (await owner.post(roles, { name: 'juniors', parent_role_slug: parent })).body.data
      .slug as string;
    await owner.post(roles, { name: 'other' });
    for (const slug of [parent, child])
      expect((await owner.post(`/api/roles/${slug}/users`, { usernames: [username] })).status).toBe(200);

    crashOnceDeleting(`"${roleKeys.members(site, child)}"`);
    const deleted = await owner.delete(`${roles}/${parent}?remove_child_roles=true`);
    expect(deleted.status).toBe(200);
    expect(await stored(roleKeys.members(site, child))).toHaveLength(1);

    // Any later deletion in the site finishes what the crashed one owed.
    expect((await owner.delete(`${roles}/${tenant.app.slug}-other`)).status).toBe(200);
    expect(await stored(roleKeys.members(site, parent))).toEqual([]);
    expect(await stored(roleKeys.members(site, child))).toEqual([]);
    expect(await stored(roleKeys.catalog(site), 'GONE#')).toEqual([]);

    // Recreated: nothing inherited.
    expect((await owner.post(roles, { name: 'juniors' })).status).toBe(201);
    expect((await owner.get(`/api/roles/${child}/users?include_expired=true`)).body.total).toBe(0);
  });
});

describe('deleting a group whose membership cleanup crashes', () => {
  it('no membership shows, the next group write finishes the cleanup, and nothing is inherited', async () => {
    const tenant = await createTenant(platform);
    const org = tenant.organization.slug;
    const groups = `/api/cloud/organizations/${org}/groups/`;
    const made = await tenant.owner.post(groups, { name: 'Reviewers' });
    expect(made.status).toBe(201);
    const oldId = made.body.id as number;
    const added = await tenant.owner.post(`${groups}reviewers/members/`, { user_id: tenant.ownerUser.id });
    expect(added.status).toBe(201);
    expect(await stored(`ORG#${org}`, groupKeys.membersOf(oldId))).toHaveLength(1);

    const crash = crashOnceDeleting(groupKeys.membersOf(oldId));
    const deleted = await tenant.owner.delete(`${groups}reviewers/`);
    expect(crash.crashed()).toBe(true);
    expect(deleted.status).toBe(204);
    const listed = await tenant.owner.get(`/api/cloud/organizations/${org}/members/`);
    const row = listed.body.results.find((m: { user_id: number }) => m.user_id === tenant.ownerUser.id);
    expect(row.groups).toEqual([]);
    expect(await stored(`ORG#${org}`, groupKeys.membersOf(oldId))).toHaveLength(1);

    const again = await tenant.owner.post(groups, { name: 'Reviewers' });
    expect(again.status).toBe(201);
    expect(await stored(`ORG#${org}`, groupKeys.membersOf(oldId))).toEqual([]);
    expect(await stored(`ORG#${org}`, 'GROUPGONE#')).toEqual([]);
    expect((await tenant.owner.get(`${groups}reviewers/members/`)).body.count).toBe(0);
  });
});
