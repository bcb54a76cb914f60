import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../accounts/keys';
import type { Organization } from '../accounts/model';
import { listOrganizationSites } from '../accounts/sites';
import { AppError } from '../errors';
import type { Store } from '../store/store';
import { hasSecondFactor } from './model';

/** DynamoDB's bound on the items of one transaction. */
const perTransaction = 100;

/**
 * Turns an organization's `require_mfa` on or off: on the organization's item and, copied, on each of its sites'
 * (the request pipeline reads the site, not its organization, for site routes: no extra read per request). The
 * organization and its first sites change in one transaction, further sites in further ones. Turning it on
 * needs a factor of the caller, so that nobody locks themselves out of their own organization.
 */
export async function setRequireMfa(
  deps: { store: Store },
  organization: Organization,
  requireMfa: boolean,
  callerId: number,
): Promise<Organization> {
  const caller = requireMfa
    ? (
        await deps.store.doc.send(
          new GetCommand({ TableName: deps.store.table, Key: keys.user(callerId), ConsistentRead: true }),
        )
      ).Item
    : undefined;
  if (requireMfa && !hasSecondFactor(caller))
    throw new AppError(409, {
      code: 'mfa_enrolment_required',
      message:
        'Set up a second factor of your own (/api/auth/mfa/totp/) before requiring one of every member.',
    });
  const sites = await listOrganizationSites(deps.store, organization.slug);
  const update = (key: { PK: string; SK: string }) => ({
    Update: {
      TableName: deps.store.table,
      Key: key,
      UpdateExpression: 'SET require_mfa = :on',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':on': requireMfa },
    },
  });
  const items = [
    update(keys.organization(organization.slug)),
    ...sites.map((site) => update(keys.site(site.slug))),
  ];
  for (let start = 0; start < items.length; start += perTransaction) {
    await deps.store.doc.send(
      new TransactWriteCommand({ TransactItems: items.slice(start, start + perTransaction) }),
    );
  }
  return { ...organization, require_mfa: requireMfa };
}
