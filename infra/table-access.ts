import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { GroupName } from '../shared/api/route';
import { indexes } from '../shared/store/table';

/**
 * The DynamoDB actions each endpoint group's function may call on the control-plane table and its indexes,
 * instead of read/write on everything (no Scan, no stream actions, no table management). Transactions need no
 * action of their own: IAM checks each Put, Update, Delete and ConditionCheck inside them as PutItem, UpdateItem,
 * DeleteItem and ConditionCheckItem. docs/deploying.md explains each group's list.
 */
const read = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'] as const;

export const tableAccess: Readonly<Record<GroupName, readonly string[]>> = {
  // Sign-in failure windows (Put, Update, Delete when a login succeeds), refresh families (Put, Update) and
  // browser sessions (Put; Delete on logout); social apps and their sentinels (transactions), login states
  // (Delete when used), users created by provider login with their link, links attached to existing users (a
  // ConditionCheck that the user is active).
  auth: [
    ...read,
    'dynamodb:PutItem',
    'dynamodb:UpdateItem',
    'dynamodb:DeleteItem',
    'dynamodb:ConditionCheckItem',
  ],
  // Users, organizations, sites, permissions and apps: conditional puts, updates and transactions of both.
  // Organization groups: renames and deletions delete name sentinels and memberships; adding a member checks
  // the organization membership and the group in its transaction. The browser session that changed its user's
  // password (Update); the sign-in failure window that a confirmed current password clears (Delete).
  accounts: [
    ...read,
    'dynamodb:PutItem',
    'dynamodb:UpdateItem',
    'dynamodb:DeleteItem',
    'dynamodb:ConditionCheckItem',
  ],
  // Roles and memberships: transactions with deletes and condition checks; memberships removed in batches.
  roles: [
    ...read,
    'dynamodb:PutItem',
    'dynamodb:UpdateItem',
    'dynamodb:DeleteItem',
    'dynamodb:ConditionCheckItem',
    'dynamodb:BatchWriteItem',
  ],
  // Secret types, secrets, tags and history: transactions with condition checks (type use counts), deletes.
  secrets: [
    ...read,
    'dynamodb:PutItem',
    'dynamodb:UpdateItem',
    'dynamodb:DeleteItem',
    'dynamodb:ConditionCheckItem',
  ],
  // Invitations, the placeholder users, acceptance in one transaction, failure windows of the public endpoints.
  invitations: [
    ...read,
    'dynamodb:PutItem',
    'dynamodb:UpdateItem',
    'dynamodb:DeleteItem',
    'dynamodb:ConditionCheckItem',
  ],
  // Records live in PostgreSQL: the table only answers who the caller is and what the site allows.
  data: [...read],
  // Public routes only (health, API description): the health check describes the table, and reads nothing of it.
  meta: ['dynamodb:DescribeTable'],
  // Functions and subscriptions: conditional puts, transactions (function, slug, subscriptions), deletes.
  events: [...read, 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
  // Hosted pages: they read through the public routes in-process (pages/api.ts): the invitation details (whose
  // failure windows are Put, Update and Delete), the social app list, the signed-in user and its links.
  pages: [...read, 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
};

/**
 * Grants a group's function its table actions: on the table, and `Query` on each named index (no `index/*`
 * wildcard; IAM checks a query of an index against the index's ARN).
 */
export function grantTableAccess(table: ITableV2, fn: IFunction, group: GroupName): void {
  const actions = tableAccess[group];
  fn.addToRolePolicy(new PolicyStatement({ actions: [...actions], resources: [table.tableArn] }));
  if (!actions.includes('dynamodb:Query')) return;
  const indexArns = indexes.map((index) => `${table.tableArn}/index/${index.name}`);
  fn.addToRolePolicy(new PolicyStatement({ actions: ['dynamodb:Query'], resources: indexArns }));
}
