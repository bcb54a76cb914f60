import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { iso } from '../clock';
import type { QuotasConfig } from '../config';
import { ConflictError, PermissionDeniedError } from '../errors';
import { slugify } from '../slug';
import { nextId, queryAll, type Store, strip } from '../store/store';
import { onConditionFailure, putNew } from '../store/writes';
import { gsi, keys, pad } from './keys';
import type { Organization, OrganizationMember, OrganizationRole, User } from './model';
import { concurrentChanges, ensureCounter, hasRoom, type Quota, sendCounted, takeOne } from './quotas';
import type { AccountsDeps } from './users';

/** The quota of organizations a user may own; superusers are counted but not limited. */
export function ownedOrganizationsQuota(user: Pick<User, 'id' | 'is_superuser'>, limit: number): Quota {
  return { key: keys.ownedOrganizations(user.id), limit, exempt: user.is_superuser };
}

/** Makes sure the user's counter of owned organizations exists (counted from the memberships when it does not). */
export async function ensureOwnedCounter(store: Store, userId: number): Promise<number> {
  return ensureCounter(
    store,
    keys.ownedOrganizations(userId),
    async () => (await listUserMemberships(store, userId)).filter((m) => m.role === 'owner').length,
  );
}

export const organizationQuotaMessage = (limit: number) =>
  `You have reached the limit of ${limit} organizations.`;

/**
 * Creates an organization owned by `owner`; the slug is unique platform-wide. Who may create organizations and how
 * many one user may own are settings (ORGANIZATION_CREATORS, ORGANIZATIONS_PER_USER): a refusal is a 403.
 */
export async function createOrganization(
  deps: AccountsDeps,
  owner: Pick<User, 'id' | 'is_superuser'>,
  input: { name: string; slug?: string | undefined },
  quotas: QuotasConfig,
): Promise<Organization> {
  if (quotas.organizationCreators === 'superusers' && !owner.is_superuser) {
    throw new PermissionDeniedError({
      code: 'organization_creators',
      message: 'Only superusers may create organizations on this platform.',
    });
  }
  const quota = ownedOrganizationsQuota(owner, quotas.organizationsPerUser);
  const quotaExceeded = () =>
    new PermissionDeniedError({ code: 'organization_quota', message: organizationQuotaMessage(quota.limit) });
  if (!hasRoom(quota, await ensureOwnedCounter(deps.store, owner.id))) throw quotaExceeded();
  const ownerId = owner.id;
  const slug = input.slug ?? slugify(input.name);
  const id = await nextId(deps.store, 'organization');
  const now = iso(deps.clock());
  const organization: Organization = { id, slug, name: input.name, owner_id: ownerId, created_at: now };
  const member: OrganizationMember = { organization: slug, user_id: ownerId, role: 'owner', joined_at: now };
  const table = deps.store.table;
  await onConditionFailure(
    sendCounted(deps.store, [
      putNew(table, {
        ...keys.organization(slug),
        GSI1PK: gsi.allOrganizations,
        GSI1SK: pad(id),
        ...organization,
      }),
      { Put: { TableName: table, Item: { ...keys.organizationId(id), slug } } },
      {
        Put: {
          TableName: table,
          Item: { ...keys.member(slug, ownerId), ...memberIndex(ownerId, slug), ...member },
        },
      },
      takeOne(table, quota),
    ]),
    (failed) => {
      if (failed.includes(3)) throw quotaExceeded();
      if (failed.includes(0)) {
        throw new ConflictError({
          code: 'organization_exists',
          message: `An organization with the slug "${slug}" already exists.`,
        });
      }
      throw concurrentChanges();
    },
  );
  return organization;
}

function memberIndex(userId: number, org: string) {
  return { GSI1PK: gsi.userMemberships(userId), GSI1SK: `ORG#${org}` };
}

export async function getOrganization(store: Store, slug: string): Promise<Organization | undefined> {
  const result = await store.doc.send(
    new GetCommand({ TableName: store.table, Key: keys.organization(slug) }),
  );
  return result.Item ? strip<Organization>(result.Item) : undefined;
}

export async function getMembership(
  store: Store,
  org: string,
  userId: number,
): Promise<OrganizationMember | undefined> {
  const result = await store.doc.send(
    new GetCommand({ TableName: store.table, Key: keys.member(org, userId) }),
  );
  return result.Item ? strip<OrganizationMember>(result.Item) : undefined;
}

/** Adds a user to an organization, or changes the role of a member; earlier memberships elsewhere are kept. */
export async function addMember(
  deps: AccountsDeps,
  org: string,
  userId: number,
  role: OrganizationRole = 'member',
): Promise<OrganizationMember> {
  const existing = await getMembership(deps.store, org, userId);
  const member: OrganizationMember = {
    organization: org,
    user_id: userId,
    role,
    joined_at: existing?.joined_at ?? iso(deps.clock()),
  };
  await deps.store.doc.send(
    new PutCommand({
      TableName: deps.store.table,
      Item: { ...keys.member(org, userId), ...memberIndex(userId, org), ...member },
    }),
  );
  return member;
}

export async function listMembers(store: Store, org: string): Promise<OrganizationMember[]> {
  return queryAll<OrganizationMember>(store, {
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': keys.organization(org).PK, ':prefix': 'MEMBER#' },
  });
}

/** The organizations a user belongs to, with the user's role in each. */
export async function listUserMemberships(store: Store, userId: number): Promise<OrganizationMember[]> {
  return queryAll<OrganizationMember>(store, {
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :pk',
    ExpressionAttributeValues: { ':pk': gsi.userMemberships(userId) },
  });
}

export async function listOrganizations(store: Store): Promise<Organization[]> {
  return queryAll<Organization>(store, {
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :pk',
    ExpressionAttributeValues: { ':pk': gsi.allOrganizations },
  });
}
