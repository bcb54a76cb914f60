import type { GroupDef, RouteDef } from './route';

/**
 * An endpoint group's manifest (`functions/<group>/manifest.ts`): its routes, envelope and description, and what its
 * function needs. The handler, the route table, the local server, the OpenAPI document and the CDK stack all read
 * it, so a group is declared in one place; a new group is a manifest plus its operations.
 */

/** The DynamoDB actions a group's function may be granted on the control-plane table (infra/table-access.ts). */
export type TableAction =
  | 'dynamodb:GetItem'
  | 'dynamodb:BatchGetItem'
  | 'dynamodb:Query'
  | 'dynamodb:PutItem'
  | 'dynamodb:UpdateItem'
  | 'dynamodb:DeleteItem'
  | 'dynamodb:ConditionCheckItem'
  | 'dynamodb:BatchWriteItem'
  | 'dynamodb:DescribeTable';

/** The reads most groups make: items by key, in batches, and queries of the table and its indexes. */
export const tableReads = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'] as const;

/** The conditional writes of items and transactions (no batch writes: a group that needs them names them). */
export const tableWrites = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:ConditionCheckItem',
] as const;

/** The database login a group's function connects as: the functions' own, or the health check's read-only one. */
export type DatabaseLogin = 'app' | 'health';

/** What a group's function needs beside its code; the CDK stack grants exactly this (infra/stack.ts). */
export interface GroupNeeds {
  /**
   * Its DynamoDB actions on the control-plane table, instead of read/write on everything (no Scan, no stream
   * actions, no table management). Transactions need no action of their own: IAM checks each Put, Update, Delete and
   * ConditionCheck inside them as PutItem, UpdateItem, DeleteItem and ConditionCheckItem. docs/deploying.md.
   */
  readonly table: readonly TableAction[];
  /** The data plane (PostgreSQL) and the login it connects as: the cloud function runs in the VPC. */
  readonly sql?: DatabaseLogin;
  /**
   * The secret store's KMS key, for its own share of the encryption contexts: `store` every secret store context,
   * `social` the social apps' client secrets (app `~social`) alone, `webhooks` the webhook endpoints' signing
   * secrets (app `~webhooks`) alone (infra/secrets-key.ts).
   */
  readonly secretsKey?: 'store' | 'social' | 'webhooks';
  /** Sends e-mail (SES, from the configured sender) and builds links to the hosted pages. */
  readonly mail?: boolean;
  /** Signs JWTs (every group verifies them). */
  readonly signsTokens?: boolean;
  /** Creates users, so it starts PRE_USER_CREATE and invokes POST_USER_CREATE subscribers (infra/events.ts). */
  readonly createsUsers?: boolean;
  /**
   * Registers tenants' event functions, so it checks their names against the allowed account and prefix (the
   * user-creating groups check them too, before each run).
   */
  readonly registersEventFunctions?: boolean;
}

export interface GroupManifest<R extends readonly RouteDef[] = readonly RouteDef[]> extends GroupDef {
  readonly routes: R;
  readonly needs: GroupNeeds;
}

/**
 * A group's manifest, checked: every route names this group (the route table, the gateway routes and the pages read
 * a route's group from the route itself), and no operationId repeats.
 */
export function defineGroup<const R extends readonly RouteDef[]>(
  manifest: GroupManifest<R>,
): GroupManifest<R> {
  const seen = new Set<string>();
  for (const route of manifest.routes) {
    if (route.group !== manifest.name)
      throw new Error(
        `Route ${route.operationId} names group ${route.group}, but is listed by ${manifest.name}`,
      );
    if (seen.has(route.operationId))
      throw new Error(`Group ${manifest.name} lists ${route.operationId} twice`);
    seen.add(route.operationId);
  }
  return manifest;
}
