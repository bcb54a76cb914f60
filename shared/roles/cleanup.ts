import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import type { Logger } from '../log';
import { chunks } from '../store/batch';
import { queryAll, type Store } from '../store/store';
import { isConditionFailure } from '../store/writes';
import { roleKeys } from './keys';
import type { Membership } from './model';

/**
 * The memberships of deleted roles. A role's deletion writes a tombstone (`GONE#<slug>#<id>` in the site's role
 * catalog) in the same transaction that removes the role; the memberships go afterwards, and the tombstone last. A
 * crash in between leaves the tombstone, and the next role write of the site (a create or a delete, of either
 * kind) finishes the work first. Until then the leftovers are invisible: every read pins a membership to its role's
 * id, which never returns, so a later role with the same slug inherits nothing (docs/roles.md, "Deleting roles").
 */

/** What a tombstone remembers: the role's slug and id (memberships are keyed by slug and pinned to the id). */
export interface GoneRole {
  slug: string;
  id: number;
}

const inFlight = 25;

/** The tombstone of a role, to put in the deletion's transaction. */
export function tombstone(table: string, site: string, role: GoneRole, at: string) {
  return {
    Put: {
      TableName: table,
      Item: { ...roleKeys.gone(site, role.slug, role.id), slug: role.slug, id: role.id, at },
    },
  };
}

/**
 * Removes the memberships of one deleted role, then its tombstone. Each delete is conditioned on the role's id, so a
 * membership of a newer role with the same slug (assigned meanwhile) stays. Idempotent: running it twice is harmless.
 */
export async function finishCleanup(store: Store, site: string, role: GoneRole): Promise<void> {
  const stored = await queryAll<Membership>(store, {
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': roleKeys.members(site, role.slug) },
    ConsistentRead: true,
  });
  const owed = stored.filter((membership) => membership.role_id === role.id);
  for (const chunk of chunks(owed, inFlight)) {
    await Promise.all(
      chunk.map((membership) =>
        store.doc
          .send(
            new DeleteCommand({
              TableName: store.table,
              Key: roleKeys.membership(site, role.slug, membership.user_id),
              ConditionExpression: 'role_id = :id',
              ExpressionAttributeValues: { ':id': role.id },
            }),
          )
          .catch((error: unknown) => {
            // Gone already, or replaced by a membership of a newer role: nothing of this role left there.
            if (!isConditionFailure(error)) throw error;
          }),
      ),
    );
  }
  await store.doc.send(
    new DeleteCommand({ TableName: store.table, Key: roleKeys.gone(site, role.slug, role.id) }),
  );
}

/**
 * Runs the cleanups of these deleted roles. A failure is logged and left to the next role write of the site: the
 * deletion itself has committed, and its tombstone keeps the work owed.
 */
export async function cleanUp(
  deps: { store: Store; log?: Logger | undefined },
  site: string,
  roles: readonly GoneRole[],
): Promise<void> {
  for (const role of roles) {
    try {
      await finishCleanup(deps.store, site, role);
    } catch (error) {
      deps.log?.warn('role memberships left for the next role write of the site', {
        site,
        role: role.slug,
        role_id: role.id,
        error: error instanceof Error ? error.message : String(error),
      });
      return;
    }
  }
}

/** Finishes what crashed deletions of the site's roles left (one Query of the catalog's tombstones). */
export async function finishPending(
  deps: { store: Store; log?: Logger | undefined },
  site: string,
): Promise<void> {
  const pending = await queryAll<GoneRole>(deps.store, {
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': roleKeys.catalog(site), ':prefix': roleKeys.gonePrefix },
    ConsistentRead: true,
  });
  await cleanUp(deps, site, pending);
}
