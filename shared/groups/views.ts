import type { Store } from '../store/store';
import { listGroups } from './groups';
import { organizationGroupMemberships } from './memberships';
import type { Group } from './model';

/** How a group appears inside a member row. */
export interface MemberGroup {
  slug: string;
  name: string;
}

/**
 * The groups of each member of an organization, by user id, sorted by name: two queries of the organization's
 * partition, whatever its size. Memberships of a group that no longer exists are left out.
 */
export async function groupsByMember(store: Store, org: string): Promise<Map<number, MemberGroup[]>> {
  const [groups, memberships] = await Promise.all([
    listGroups(store, org),
    organizationGroupMemberships(store, org),
  ]);
  const byId = new Map<number, Group>(groups.map((group) => [group.id, group]));
  const result = new Map<number, MemberGroup[]>();
  for (const membership of memberships) {
    const group = byId.get(membership.group_id);
    if (!group) continue;
    const list = result.get(membership.user_id) ?? [];
    list.push({ slug: group.slug, name: group.name });
    result.set(membership.user_id, list);
  }
  for (const list of result.values()) list.sort((a, b) => a.name.localeCompare(b.name));
  return result;
}
