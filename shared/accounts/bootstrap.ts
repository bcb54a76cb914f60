import { DeleteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { iso } from '../clock';
import { ConflictError } from '../errors';
import { isConditionFailure } from '../store/writes';
import type { User } from './model';
import { passwordProblem } from './password-policy';
import { generatePassword } from './passwords';
import { createUser, findUserByEmail, getUser, type UserCreationDeps } from './users';

const marker = { PK: 'BOOTSTRAP', SK: 'ADMIN' };

/**
 * Whether the superuser a bootstrap marker records exists. Markers written since the marker and the user are
 * created in one transaction name the user's id; older ones only its e-mail, and a start killed between writing
 * such a marker and creating the user left a marker whose user never came to be.
 */
async function markedUserExists(deps: UserCreationDeps, item: Record<string, unknown>): Promise<boolean> {
  if (typeof item.user_id === 'number') return (await getUser(deps.store, item.user_id)) !== undefined;
  return typeof item.email === 'string' && (await findUserByEmail(deps.store, item.email)) !== undefined;
}

/**
 * Creates the first superuser once. Returns the created user and its password when this call created it (so the
 * caller can show it once), undefined when it already existed.
 *
 * The user and the `BOOTSTRAP/ADMIN` marker are written in one transaction, so a start killed at any point leaves
 * either both or neither. A marker whose user does not exist (left by an earlier version killed half-way) is
 * removed and the superuser created: the start and `npm run create-superuser` repair that state.
 */
export async function ensureBootstrapAdmin(
  deps: UserCreationDeps,
  input: { email?: string | undefined; password?: string | undefined },
): Promise<{ user: User; password: string; generated: boolean } | undefined> {
  const existing = await deps.store.doc.send(new GetCommand({ TableName: deps.store.table, Key: marker }));
  if (existing.Item) {
    if (await markedUserExists(deps, existing.Item)) return undefined;
    try {
      // Only the marker that was read: a repair that ran meanwhile wrote another one, naming its user.
      const userId = existing.Item.user_id;
      await deps.store.doc.send(
        new DeleteCommand({
          TableName: deps.store.table,
          Key: marker,
          ...(typeof userId === 'number'
            ? { ConditionExpression: 'user_id = :id', ExpressionAttributeValues: { ':id': userId } }
            : { ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(user_id)' }),
        }),
      );
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }
  const email = input.email ?? 'admin@localhost.localdomain';
  const password = input.password ?? generatePassword();
  // Checked before anything is written, so that a refused ADMIN_PASSWORD can be fixed and the start retried.
  const problem = await passwordProblem(password, ['admin', email]);
  if (problem) throw new Error(`ADMIN_PASSWORD is refused by the password policy: ${problem}`);
  try {
    const user = await createUser(
      deps,
      { email, username: 'admin', password, is_superuser: true },
      { alsoCreate: (user) => [{ ...marker, email, user_id: user.id, created_at: iso(deps.clock()) }] },
    );
    return { user, password, generated: input.password === undefined };
  } catch (error) {
    // Another process created the first superuser meanwhile (its marker exists now).
    if (error instanceof ConflictError && error.code === 'linked_elsewhere') return undefined;
    throw error;
  }
}
