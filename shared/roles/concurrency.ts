import { atVersion, versionedUpdate as storeVersionedUpdate } from '../store/writes';
import { roleErrors } from './errors';
import { roleKeys } from './keys';

/** Thrown inside an optimistic step when a write found the catalog changed since it was read. */
export class StaleCatalog extends Error {
  override name = 'StaleCatalog';
}

const attempts = 3;

/**
 * Runs a read-decide-write step again when its transaction finds the catalog changed (a version condition failed,
 * or another transaction touched the same items), and gives up with a 409 after a few attempts.
 */
export async function optimistic<T>(step: () => Promise<T>): Promise<T> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    try {
      return await step();
    } catch (error) {
      if (error instanceof StaleCatalog) continue;
      throw error;
    }
  }
  throw roleErrors.hierarchyChanged();
}

/** The condition that a role item is still at the version that was read. */
export const versionCheck = (version: number) => atVersion(version);

/**
 * The input of an update of a role item (`set`: its SET clause and values) on the condition that the item is still
 * at the version that was read.
 */
export function versionedUpdate(
  table: string,
  role: { site: string; slug: string; version: number },
  set: string,
  values: Record<string, unknown>,
  names: Record<string, string> = {},
) {
  return storeVersionedUpdate(
    table,
    {
      Key: roleKeys.role(role.site, role.slug),
      UpdateExpression: set,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
    role.version,
  );
}
