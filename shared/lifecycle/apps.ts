import { DeleteCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../accounts/keys';
import type { App, Site } from '../accounts/model';
import { iso } from '../clock';
import { NotFoundError } from '../errors';
import { eventKeys } from '../events/keys';
import { eventNames } from '../events/model';
import { cleanUp as cleanUpRoles, type GoneRole, tombstone as roleTombstone } from '../roles/cleanup';
import { roleKeys } from '../roles/keys';
import { pruneStaleBundles } from '../roles/site-roles';
import { secretKeys } from '../secrets/keys';
import { cacheId } from '../secrets/value-cache';
import { queryAll } from '../store/store';
import { isConditionFailure } from '../store/writes';
import {
  type Budget,
  guardedWrite,
  type LifecycleDeps,
  type NameKey,
  queryItems,
  runsSql,
  spend,
  untilNameTaken,
} from './budget';
import { dropAppTables } from './data-plane';
import { deletionKeys } from './keys';

/**
 * Deleting an app (docs/lifecycle.md). One transaction removes the app, its id and writes its tombstone: from then
 * on the app is not found, and a new app may take its slug. The cleanup follows, each step idempotent: its data
 * tables in PostgreSQL, its secrets and their history, its functions and their subscriptions, its roles and their
 * memberships, then the bundle entries of site roles that named them; the tombstone goes last. A crash leaves the tombstone, and the work is finished by the next start,
 * or by the site's next app create or delete.
 */

/** What an app's tombstone remembers. */
export interface AppTombstone {
  kind: 'app';
  site: string;
  site_identity: string;
  app_id: number;
  app_slug: string;
  app_identity: string;
  deleted_by: number;
  at: string;
}

/** Writes the tombstone with the app's removal (conditioned on its id, so a newer app of the slug stays). */
export async function markAppDeleted(
  deps: LifecycleDeps,
  site: Site,
  app: App,
  by: number,
): Promise<AppTombstone> {
  const tomb: AppTombstone = {
    kind: 'app',
    site: site.slug,
    site_identity: site.created_at,
    app_id: app.id,
    app_slug: app.slug,
    app_identity: app.created_at,
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
              Key: keys.app(site.slug, app.slug),
              ConditionExpression: 'id = :id',
              ExpressionAttributeValues: { ':id': app.id },
            },
          },
          { Delete: { TableName: table, Key: keys.appId(app.id) } },
          { Put: { TableName: table, Item: { ...deletionKeys.app(site.slug, app.id), ...tomb } } },
        ],
      }),
    );
  } catch (error) {
    // Deleted meanwhile by another request.
    if (isConditionFailure(error)) throw new NotFoundError();
    throw error;
  }
  return tomb;
}

/**
 * Runs the app's cleanup within the budget; true when it is finished (the tombstone removed). Its writes under the
 * app's slug (secrets and their history, function slugs) are made only while no new app of the site has the slug:
 * another cleaner may have finished this deletion and a new app taken the name meanwhile (docs/lifecycle.md).
 */
export function cleanUpApp(deps: LifecycleDeps, tomb: AppTombstone, budget: Budget): Promise<boolean> {
  const name = keys.app(tomb.site, tomb.app_slug);
  return untilNameTaken(deps, name, deletionKeys.app(tomb.site, tomb.app_id), () =>
    cleanUpAppItems(deps, tomb, budget, name),
  );
}

async function cleanUpAppItems(
  deps: LifecycleDeps,
  tomb: AppTombstone,
  budget: Budget,
  name: NameKey,
): Promise<boolean> {
  const owner = {
    site: tomb.site,
    siteIdentity: tomb.site_identity,
    appId: tomb.app_id,
    appIdentity: tomb.app_identity,
  };
  // 1. Data tables, a few per transaction; without the data plane here, the whole cleanup is the sweeper's (its
  // steps run in this order, the tables first).
  if (!runsSql(deps)) return false;
  while (budget.left > 0) {
    const dropped = await dropAppTables(deps.sql(), owner, Math.min(budget.left, 10));
    if (dropped === 0) break;
    spend(budget, dropped);
  }
  if (budget.left <= 0) return false;
  if (!(await removeSecrets(deps, tomb, budget, name))) return false;
  if (!(await removeFunctions(deps, tomb, budget, name))) return false;
  if (!(await removeRoles(deps, tomb, budget))) return false;
  await deps.store.doc.send(
    new DeleteCommand({ TableName: deps.store.table, Key: deletionKeys.app(tomb.site, tomb.app_id) }),
  );
  return true;
}

interface StoredSecretRef {
  key: string;
  app: string | null;
  type_slug: string;
  revision: number;
}

/** The app level's secrets: each one's history, then the secret with its type's count, in one transaction. */
async function removeSecrets(
  deps: LifecycleDeps,
  tomb: AppTombstone,
  budget: Budget,
  name: NameKey,
): Promise<boolean> {
  const { store } = deps;
  const secrets = await queryAll<StoredSecretRef>(store, {
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: {
      ':pk': secretKeys.secrets(tomb.site),
      ':prefix': `${secretKeys.secretPrefix}APP#${tomb.app_slug}#`,
    },
    ConsistentRead: true,
  });
  for (const secret of secrets) {
    if (budget.left <= 0) return false;
    const history = await queryItems(store, {
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': secretKeys.history(tomb.site, tomb.app_slug, secret.key) },
      ProjectionExpression: 'PK, SK',
      ConsistentRead: true,
    });
    for (const entry of history)
      await guardedWrite(deps, name, [
        { Delete: { TableName: store.table, Key: { PK: entry.PK, SK: entry.SK } } },
      ]);
    // Gone or changed meanwhile (a failed condition): the next pass reads it again.
    await guardedWrite(deps, name, [
      {
        Delete: {
          TableName: store.table,
          Key: secretKeys.secret(tomb.site, tomb.app_slug, secret.key),
          ConditionExpression: 'revision = :revision',
          ExpressionAttributeValues: { ':revision': secret.revision },
        },
      },
      {
        Update: {
          TableName: store.table,
          Key: secretKeys.type(tomb.site, secret.type_slug),
          UpdateExpression: 'ADD secret_count :by',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':by': -1 },
        },
      },
    ]);
    deps.secretCache.delete(cacheId(tomb.site, tomb.app_slug, secret.key));
    spend(budget, 1);
  }
  return true;
}

interface FunctionRef {
  id: number;
  slug: string;
  app_id: number;
}

/** The app's functions, each with its slug and its subscriptions (one transaction each). */
async function removeFunctions(
  deps: LifecycleDeps,
  tomb: AppTombstone,
  budget: Budget,
  name: NameKey,
): Promise<boolean> {
  const { store } = deps;
  const functions = await queryAll<FunctionRef>(store, {
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': eventKeys.functions(tomb.site), ':prefix': 'FN#' },
    ConsistentRead: true,
  });
  for (const fn of functions.filter((candidate) => candidate.app_id === tomb.app_id)) {
    if (budget.left <= 0) return false;
    await guardedWrite(deps, name, [
      { Delete: { TableName: store.table, Key: eventKeys.function(tomb.site, fn.id) } },
      { Delete: { TableName: store.table, Key: eventKeys.functionSlug(tomb.site, tomb.app_slug, fn.slug) } },
      ...eventNames.map((event) => ({
        Delete: { TableName: store.table, Key: eventKeys.subscription(tomb.site, event, fn.id) },
      })),
    ]);
    spend(budget, 1);
  }
  return true;
}

interface RoleRef {
  kind: string;
  slug: string;
  id: number;
  app_id?: number;
}

/**
 * The app's roles: each removed with a role tombstone (the roles' own mechanism, shared/roles/cleanup.ts), whose
 * memberships are then removed; a crash there is finished by the site's next role write, or by this pass again.
 */
async function removeRoles(deps: LifecycleDeps, tomb: AppTombstone, budget: Budget): Promise<boolean> {
  const { store } = deps;
  const roles = await queryAll<RoleRef>(store, {
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': roleKeys.catalog(tomb.site), ':prefix': roleKeys.rolePrefix },
    ConsistentRead: true,
  });
  const gone: GoneRole[] = [];
  for (const role of roles.filter((r) => r.kind === 'app_role' && r.app_id === tomb.app_id)) {
    if (budget.left <= 0) break;
    try {
      await store.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Delete: {
                TableName: store.table,
                Key: roleKeys.role(tomb.site, role.slug),
                ConditionExpression: 'id = :id',
                ExpressionAttributeValues: { ':id': role.id },
              },
            },
            roleTombstone(store.table, tomb.site, { slug: role.slug, id: role.id }, iso(deps.clock())),
          ],
        }),
      );
    } catch (error) {
      if (String((error as Error)?.name) !== 'TransactionCanceledException') throw error;
    }
    gone.push({ slug: role.slug, id: role.id });
    spend(budget, 1);
  }
  // Also the role tombstones an earlier pass of this cleanup left.
  const pending = await queryAll<GoneRole>(store, {
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': roleKeys.catalog(tomb.site), ':prefix': roleKeys.gonePrefix },
    ConsistentRead: true,
  });
  const owed = pending.filter((role) => !gone.some((g) => g.id === role.id));
  await cleanUpRoles(deps, tomb.site, [...gone, ...owed]);
  const allGone = roles.every((r) => !(r.kind === 'app_role' && r.app_id === tomb.app_id));
  if (budget.left <= 0 && !allGone) return false;
  // The site roles that bundled them: no stale {slug, id} entry is kept.
  spend(budget, await pruneStaleBundles(deps, tomb.site));
  return true;
}
