import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { groups } from '../functions/groups';
import type { TableAction } from '../shared/api/group';
import type { GroupName } from '../shared/api/route';
import { apiKeyUsePrefix } from '../shared/api-keys/model';
import { indexes } from '../shared/store/table';

/**
 * The DynamoDB actions each endpoint group's function may call on the control-plane table and its indexes, as its
 * manifest lists them (`needs.table`, functions/<group>/manifest.ts, each list explained there), instead of
 * read/write on everything: no Scan, no stream actions, no table management. docs/deploying.md.
 */
export const tableAccess: Readonly<Record<GroupName, readonly string[]>> = Object.fromEntries(
  Object.values(groups).map((group) => [group.name, group.needs.table]),
) as Record<GroupName, readonly string[]>;

/**
 * Whether a function with these actions gets the API-key last-use grant: one that reads the table (so resolves API
 * keys) but may not update items. Its grant is UpdateItem on the keys' last-use items alone (`APIKEYUSE#…`, an IAM
 * condition on the partition key), so the data function still writes nothing else (docs/security.md, "API keys").
 */
export function needsKeyUseGrant(actions: readonly string[]): boolean {
  return actions.includes('dynamodb:GetItem') && !actions.includes('dynamodb:UpdateItem');
}

/** The groups whose functions get the last-use grant. */
export const keyUseAccess: Readonly<Record<GroupName, boolean>> = Object.fromEntries(
  Object.values(groups).map((group) => [group.name, needsKeyUseGrant(group.needs.table)]),
) as Record<GroupName, boolean>;

/** The condition of the last-use grant: every partition key the request touches is a last-use item's. */
export const keyUseCondition = {
  'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${apiKeyUsePrefix}*`] },
} as const;

/**
 * Grants a group's function its table actions: on the table, and `Query` on each named index (no `index/*`
 * wildcard; IAM checks a query of an index against the index's ARN); and to readers the last-use grant above.
 */
export function grantTableAccess(table: ITableV2, fn: IFunction, actions: readonly TableAction[]): void {
  fn.addToRolePolicy(new PolicyStatement({ actions: [...actions], resources: [table.tableArn] }));
  if (needsKeyUseGrant(actions))
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['dynamodb:UpdateItem'],
        resources: [table.tableArn],
        conditions: keyUseCondition,
      }),
    );
  if (!actions.includes('dynamodb:Query')) return;
  const indexArns = indexes.map((index) => `${table.tableArn}/index/${index.name}`);
  fn.addToRolePolicy(new PolicyStatement({ actions: ['dynamodb:Query'], resources: indexArns }));
}
