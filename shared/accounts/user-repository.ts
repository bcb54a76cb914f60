import { ConflictError, ValidationError } from '../errors';
import { type Store, uniqueKey } from '../store/store';
import { createUnique } from '../store/writes';
import { gsi, keys, pad } from './keys';
import type { StoredUser } from './model';

/**
 * Saves a new user: the user item and its username and e-mail sentinels in one transaction, so both stay unique
 * case-insensitively even under concurrent creations. A taken username or e-mail is a 400 naming the field.
 * `alsoCreate` are items that must exist exactly when the user does (a social login's identity link): created
 * in the same transaction, a taken one is a 409 `linked_elsewhere`.
 */
export async function insertUser(
  store: Store,
  user: StoredUser,
  alsoCreate: readonly Record<string, unknown>[] = [],
): Promise<void> {
  await createUnique(
    store,
    [
      { item: { ...keys.usernameSentinel(uniqueKey(user.username)), user_id: user.id } },
      { item: { ...keys.emailSentinel(uniqueKey(user.email)), user_id: user.id } },
      { item: { ...keys.user(user.id), GSI1PK: gsi.allUsers, GSI1SK: pad(user.id), ...user } },
      ...alsoCreate.map((item) => ({ item })),
    ],
    {
      // Both taken fields are named at once, so the errors are built here rather than per item.
      otherwise: (failed) => {
        if (failed.length > 0 && failed.every((index) => index > 2))
          return new ConflictError({
            code: 'linked_elsewhere',
            message: 'An item created with the user already exists.',
          });
        const fields: Record<string, string[]> = {};
        if (failed.includes(0)) fields.username = ['A user with that username already exists.'];
        if (failed.includes(1)) fields.email = ['A user with that email already exists.'];
        return new ValidationError({
          fields,
          message: Object.values(fields).flat().join(' '),
          code: 'user_exists',
        });
      },
    },
  );
}
