import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Organization } from '../accounts/model';
import type { AccountsDeps } from '../accounts/users';
import { iso } from '../clock';
import { ConflictError, NotFoundError, ValidationError } from '../errors';
import type { Logger } from '../log';
import { slugify, slugMaxLength } from '../slug';
import { nextId, queryAll, type Store, strip, uniqueKey } from '../store/store';
import { createUnique, onConditionFailure, putNew, transact } from '../store/writes';
import { cleanUpGroups, finishPendingGroups, groupTombstone } from './cleanup';
import { type Group, groupKeys } from './model';

/** A name as stored: trimmed; blank names are refused naming the field. */
function groupName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) throw ValidationError.field('name', 'This field may not be blank.', 'blank');
  return trimmed;
}

/** The slug of a new group: the one given, or the name's (shared/slug.ts), cut to a slug's length. */
function groupSlug(name: string, given: string | undefined): string {
  if (given !== undefined) return given;
  const slug = slugify(name).slice(0, slugMaxLength).replace(/-+$/, '');
  if (!slug) {
    throw ValidationError.field(
      'slug',
      'The name has no letters or digits to make a slug from: give a slug.',
      'slug_required',
    );
  }
  return slug;
}

const nameTaken = (name: string) =>
  new ConflictError({
    code: 'group_exists',
    message: `A group named "${name}" already exists in this organization.`,
  });

const groupChanged = () =>
  new ConflictError({
    code: 'group_changed',
    message: 'The group changed meanwhile: read it again and retry.',
  });

/** The name sentinel of a group: the item that holds its name in the organization. */
function nameSentinel(group: Group) {
  return {
    ...groupKeys.name(group.organization_slug, uniqueKey(group.name)),
    group_id: group.id,
    group_slug: group.slug,
  };
}

/** Creates a group; its name (ignoring case) and its slug are unique in the organization. */
export async function createGroup(
  deps: AccountsDeps,
  organization: Organization,
  input: { name: string; slug?: string | undefined },
): Promise<Group> {
  const name = groupName(input.name);
  const slug = groupSlug(name, input.slug);
  // Memberships a crashed deletion left go first: the organization's partition holds only live ones after.
  await finishPendingGroups(deps, organization.slug);
  const now = iso(deps.clock());
  const group: Group = {
    id: await nextId(deps.store, 'group'),
    slug,
    name,
    organization_id: organization.id,
    organization_slug: organization.slug,
    created_at: now,
    updated_at: now,
  };
  // A taken name wins over a taken slug: the name is what the caller chose.
  await createUnique(deps.store, [
    { item: nameSentinel(group), taken: () => nameTaken(name) },
    {
      item: { ...groupKeys.group(organization.slug, slug), ...group },
      taken: () =>
        new ConflictError({
          code: 'group_slug_exists',
          message: `A group with the slug "${slug}" already exists in this organization: give another slug.`,
        }),
    },
  ]);
  return group;
}

/** The organization's group of a slug (strongly consistent). */
export async function getGroup(store: Store, org: string, slug: string): Promise<Group | undefined> {
  const result = await store.doc.send(
    new GetCommand({ TableName: store.table, Key: groupKeys.group(org, slug), ConsistentRead: true }),
  );
  return result.Item ? strip<Group>(result.Item) : undefined;
}

/** The organization's group of a slug, or 404. */
export async function requireGroup(store: Store, org: string, slug: string): Promise<Group> {
  const group = await getGroup(store, org, slug);
  if (!group) throw new NotFoundError();
  return group;
}

/** The organization's groups, by slug (one partition range of one organization). */
export async function listGroups(store: Store, org: string): Promise<Group[]> {
  return queryAll<Group>(store, {
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': `ORG#${org}`, ':prefix': groupKeys.groupPrefix },
    ConsistentRead: true,
  });
}

/** Renames a group; the slug stays (it is the group's address). The name sentinel moves in the same transaction. */
export async function renameGroup(deps: AccountsDeps, group: Group, newName: string): Promise<Group> {
  const name = groupName(newName);
  const renamed: Group = { ...group, name, updated_at: iso(deps.clock()) };
  const table = deps.store.table;
  const org = group.organization_slug;
  const sameKey = uniqueKey(name) === uniqueKey(group.name);
  const update = {
    Update: {
      TableName: table,
      Key: groupKeys.group(org, group.slug),
      UpdateExpression: 'SET #name = :name, updated_at = :now',
      ConditionExpression: 'attribute_exists(PK) AND id = :id AND #name = :old',
      ExpressionAttributeNames: { '#name': 'name' },
      ExpressionAttributeValues: {
        ':name': name,
        ':now': renamed.updated_at,
        ':id': group.id,
        ':old': group.name,
      },
    },
  };
  const moveSentinel = sameKey
    ? []
    : [
        putNew(table, nameSentinel(renamed)),
        {
          Delete: {
            TableName: table,
            Key: groupKeys.name(org, uniqueKey(group.name)),
            ConditionExpression: 'group_id = :id',
            ExpressionAttributeValues: { ':id': group.id },
          },
        },
      ];
  await onConditionFailure(transact(deps.store, [update, ...moveSentinel]), (failed) => {
    throw failed.includes(1) ? nameTaken(name) : groupChanged();
  });
  return renamed;
}

/**
 * Deletes a group, its name and writes its tombstone in one transaction, then its memberships (shared/groups/
 * cleanup.ts: a crash there leaves the tombstone, and the next group write finishes the work). Memberships are
 * keyed by the group's id: any left behind belong to no group, and a later group with the same slug starts empty.
 */
export async function deleteGroup(
  deps: AccountsDeps & { log?: Logger | undefined },
  group: Group,
): Promise<void> {
  const table = deps.store.table;
  const org = group.organization_slug;
  await finishPendingGroups(deps, org);
  await onConditionFailure(
    transact(deps.store, [
      {
        Delete: {
          TableName: table,
          Key: groupKeys.group(org, group.slug),
          // The name read is the name whose sentinel goes: a rename in between fails the transaction.
          ConditionExpression: 'id = :id AND #name = :name',
          ExpressionAttributeNames: { '#name': 'name' },
          ExpressionAttributeValues: { ':id': group.id, ':name': group.name },
        },
      },
      { Delete: { TableName: table, Key: groupKeys.name(org, uniqueKey(group.name)) } },
      groupTombstone(table, org, group.id, iso(deps.clock())),
    ]),
    async () => {
      if (!(await getGroup(deps.store, org, group.slug))) throw new NotFoundError();
      throw groupChanged();
    },
  );
  await cleanUpGroups(deps, org, [group.id]);
}
