import { batchGet, getItems } from '../store/batch';
import { type Store, uniqueKey } from '../store/store';
import { type Group, type GroupRef, groupKeys } from './model';

/**
 * The organization's groups of some names (ignoring case, as names are unique that way), and the names that name
 * none, as they were spelled. Two BatchGetItem round trips: the name sentinels, then the groups they point to.
 */
export async function groupsByName(
  store: Store,
  org: string,
  names: readonly string[],
): Promise<{ found: Group[]; missing: string[] }> {
  const distinct = [...new Map(names.map((name) => [uniqueKey(name), name])).entries()];
  const sentinelOf = await getItems(
    store,
    distinct.map(([key]) => groupKeys.name(org, key)),
  );
  const missing: string[] = [];
  const slugs: string[] = [];
  for (const [key, spelled] of distinct) {
    const sentinel = sentinelOf(groupKeys.name(org, key));
    if (sentinel) slugs.push(String(sentinel.group_slug));
    else missing.push(spelled);
  }
  const groups = await batchGet<Group>(
    store,
    [...new Set(slugs)].map((slug) => groupKeys.group(org, slug)),
  );
  return { found: groups.sort((a, b) => a.name.localeCompare(b.name)), missing };
}

/** Which of the groups an invitation keeps still exist as those groups (same slug and id). */
export async function existingGroups(store: Store, org: string, refs: readonly GroupRef[]): Promise<Group[]> {
  if (refs.length === 0) return [];
  const groups = await batchGet<Group>(
    store,
    refs.map((ref) => groupKeys.group(org, ref.slug)),
  );
  return groups.filter((group) => refs.some((ref) => ref.id === group.id && ref.slug === group.slug));
}
