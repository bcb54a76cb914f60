import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { iso } from '../clock';
import { isConditionalCheckFailure } from '../store/store';
import type { User } from './model';
import { passwordProblem } from './password-policy';
import { generatePassword } from './passwords';
import { createUser, type UserCreationDeps } from './users';

const marker = { PK: 'BOOTSTRAP', SK: 'ADMIN' };

/**
 * Creates the first superuser once. Returns the created user and its password when this call created it (so the
 * caller can show it once), undefined when it already existed.
 */
export async function ensureBootstrapAdmin(
  deps: UserCreationDeps,
  input: { email?: string | undefined; password?: string | undefined },
): Promise<{ user: User; password: string; generated: boolean } | undefined> {
  const existing = await deps.store.doc.send(new GetCommand({ TableName: deps.store.table, Key: marker }));
  if (existing.Item) return undefined;
  const email = input.email ?? 'admin@localhost.localdomain';
  const password = input.password ?? generatePassword();
  // Checked before the marker is written, so that a refused ADMIN_PASSWORD can be fixed and the start retried.
  const problem = await passwordProblem(password, ['admin', email]);
  if (problem) throw new Error(`ADMIN_PASSWORD is refused by the password policy: ${problem}`);
  try {
    await deps.store.doc.send(
      new PutCommand({
        TableName: deps.store.table,
        Item: { ...marker, email, created_at: iso(deps.clock()) },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
  } catch (error) {
    if (isConditionalCheckFailure(error)) return undefined;
    throw error;
  }
  const user = await createUser(deps, {
    email,
    username: 'admin',
    password,
    is_superuser: true,
  });
  return { user, password, generated: input.password === undefined };
}
