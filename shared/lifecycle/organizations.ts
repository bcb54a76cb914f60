import { DeleteCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { gsi, keys } from '../accounts/keys';
import type { Organization, Site } from '../accounts/model';
import { iso } from '../clock';
import { NotFoundError } from '../errors';
import { invitationKeys } from '../invitations/model';
import {
  type Budget,
  guardedWrite,
  type LifecycleDeps,
  type NameKey,
  queryItems,
  removeAll,
  untilNameTaken,
} from './budget';
import { deletionKeys } from './keys';
import { cleanUpSite, type SiteTombstone, siteDeletionItems, siteTombstone } from './sites';

/**
 * Deleting an organization (docs/lifecycle.md). One transaction removes the organization, its id and its owner's
 * organization counter (recounted on the next create), and writes the tombstone. The cleanup deletes each of its
 * sites as a site deletion does (a site tombstone, then its cleanup), its invitations and their tokens, then the
 * organization's own partition (members, groups, group memberships, counters). A new organization may take the slug
 * once the cleanup is done: a create of that slug finishes it first.
 */

export interface OrganizationTombstone {
  kind: 'organization';
  organization: string;
  organization_id: number;
  deleted_by: number;
  at: string;
}

export async function markOrganizationDeleted(
  deps: LifecycleDeps,
  organization: Organization,
  by: number,
): Promise<OrganizationTombstone> {
  const tomb: OrganizationTombstone = {
    kind: 'organization',
    organization: organization.slug,
    organization_id: organization.id,
    deleted_by: by,
    at: iso(deps.clock()),
  };
  const table = deps.store.table;
  try {
    await deps.store.doc.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Delete: {
              TableName: table,
              Key: keys.organization(organization.slug),
              ConditionExpression: 'id = :id',
              ExpressionAttributeValues: { ':id': organization.id },
            },
          },
          { Delete: { TableName: table, Key: keys.organizationId(organization.id) } },
          { Delete: { TableName: table, Key: keys.ownedOrganizations(organization.owner_id) } },
          {
            Put: {
              TableName: table,
              Item: { ...deletionKeys.organization(organization.slug, organization.id), ...tomb },
            },
          },
        ],
      }),
    );
  } catch (error) {
    if (String((error as Error)?.name) === 'TransactionCanceledException') throw new NotFoundError();
    throw error;
  }
  return tomb;
}

export function cleanUpOrganization(
  deps: LifecycleDeps,
  tomb: OrganizationTombstone,
  budget: Budget,
): Promise<boolean> {
  const name = keys.organization(tomb.organization);
  return untilNameTaken(deps, name, deletionKeys.organization(tomb.organization, tomb.organization_id), () =>
    cleanUpOrganizationItems(deps, tomb, budget, name),
  );
}

/** The organization's cleanup, every write made only while no new organization has the slug (`name`). */
async function cleanUpOrganizationItems(
  deps: LifecycleDeps,
  tomb: OrganizationTombstone,
  budget: Budget,
  name: NameKey,
): Promise<boolean> {
  const org = tomb.organization;
  // Sites still standing: each gets its tombstone (so a crash from here on is a site deletion owed), then its cleanup.
  const sites = await queryItems(deps.store, {
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :pk',
    ExpressionAttributeValues: { ':pk': gsi.organizationSites(org) },
  });
  for (const item of sites) {
    if (budget.left <= 0) return false;
    const site = item as unknown as Site;
    const siteTomb = siteTombstone(deps, site, tomb.deleted_by);
    // Only while the organization's name is free: a new organization of the slug has sites of its own here.
    // A failed condition of the site's items: removed meanwhile; its cleanup below finds what is left.
    await guardedWrite(deps, name, siteDeletionItems(deps.store.table, site, siteTomb));
    if (!(await cleanUpSite(deps, siteTomb, budget))) return false;
  }
  // Site deletions of this organization a crash left.
  const pendingSites = await queryItems(deps.store, {
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': deletionKeys.partition, ':prefix': 'SITE#' },
    ConsistentRead: true,
  });
  for (const pending of pendingSites.filter((item) => item.organization === org))
    if (!(await cleanUpSite(deps, pending as unknown as SiteTombstone, budget))) return false;
  // Invitations and their token sentinels.
  const invitations = await queryItems(deps.store, {
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :pk',
    ExpressionAttributeValues: { ':pk': invitationKeys.organizationIndex(org) },
  });
  for (const invitation of invitations) {
    const parts = [
      ...(typeof invitation.token_hash === 'string' ? [invitationKeys.token(invitation.token_hash)] : []),
      { PK: invitation.PK, SK: invitation.SK },
    ];
    if (!(await removeAll(deps, parts, budget, name))) return false;
  }
  const own = await queryItems(deps.store, {
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': `ORG#${org}` },
    ConsistentRead: true,
  });
  if (!(await removeAll(deps, own, budget, name))) return false;
  await deps.store.doc.send(
    new DeleteCommand({
      TableName: deps.store.table,
      Key: deletionKeys.organization(org, tomb.organization_id),
    }),
  );
  return true;
}
