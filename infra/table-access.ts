import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { groups } from '../functions/groups';
import type { TableAction } from '../shared/api/group';
import type { GroupName } from '../shared/api/route';
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
 * Grants a group's function its table actions: on the table, and `Query` on each named index (no `index/*`
 * wildcard; IAM checks a query of an index against the index's ARN).
 */
export function grantTableAccess(table: ITableV2, fn: IFunction, actions: readonly TableAction[]): void {
  fn.addToRolePolicy(new PolicyStatement({ actions: [...actions], resources: [table.tableArn] }));
  if (!actions.includes('dynamodb:Query')) return;
  const indexArns = indexes.map((index) => `${table.tableArn}/index/${index.name}`);
  fn.addToRolePolicy(new PolicyStatement({ actions: ['dynamodb:Query'], resources: indexArns }));
}
