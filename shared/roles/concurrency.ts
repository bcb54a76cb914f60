import { failedConditions } from '../store/store';
import { roleErrors } from './errors';

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

/** The condition indexes of a cancelled transaction; any other error is rethrown. */
export function cancelled(error: unknown): number[] {
  const failed = failedConditions(error);
  if (!failed) throw error;
  return failed;
}

/** An update that bumps a role's version, on the condition that it is still the version that was read. */
export function versionCheck(version: number) {
  return {
    ConditionExpression: '#version = :version',
    ExpressionAttributeNames: { '#version': 'version' },
    ExpressionAttributeValues: { ':version': version },
  };
}
