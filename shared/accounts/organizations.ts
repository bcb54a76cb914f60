import { GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { iso } from '../clock';
import { ConflictError } from '../errors';
import { slugify } from '../slug';
import { failedConditions, nextId, putNew, queryAll, type Store, strip } from '../store/store';
import { gsi, keys, pad } from './keys';
import type { Organization, OrganizationMember, OrganizationRole } from './model';
import type { AccountsDeps } from './users';

/** Creates an organization owned by `ownerId`; the slug is unique platform-wide. */
export async function createOrganization(
  deps: AccountsDeps,
  ownerId: number,
  input: { name: string; slug?: string | undefined },
): Promise<Organization> {
  const slug = input.slug ?? slugify(input.name);
  const id = await nextId(deps.store, 'organization');
  const now = iso(deps.clock());
  const organization: Organization = { id, slug, name: input.name, owner_id: ownerId, created_at: now };
  const member: OrganizationMember = { organization: slug, user_id: ownerId, role: 'owner', joined_at: now };
  const table = deps.store.table;
  try {
    await deps.store.doc.send(
      new TransactWriteCommand({
        TransactItems: [
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
        ],
      }),
    );
  } catch (error) {
    if (failedConditions(error)?.includes(0)) {
      throw new ConflictError({
        code: 'organization_exists',
        message: `An organization with the slug "${slug}" already exists.`,
      });
    }
    throw error;
  }
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
