import type { User } from '../accounts/model';
import { generatePassword } from '../accounts/passwords';
import { type AccountsDeps, findUserByLogin, updateUser } from '../accounts/users';
import type { Config } from '../config';
import { NotFoundError } from '../errors';
import { clearFailures } from '../limits/failures';
import { loginPolicies } from './login';

export interface PasswordReset {
  readonly user: User;
  readonly password: string;
  /** The password was generated here (to be shown once), not given. */
  readonly generated: boolean;
}

/**
 * Sets a new password for the user a login (username or e-mail) names, on the authority of whoever runs it: the
 * machine's owner with `npm run reset-password` (bin/reset-password.ts), never a request. The password policy
 * applies as to every password; like every password change it ends the user's earlier sessions and refresh tokens
 * (`updateUser`: `endEarlierSessions`), and it lifts the account's sign-in lock, which the forgotten password may
 * have set. Generated when not given.
 */
export async function resetPassword(
  deps: AccountsDeps & { readonly config: Config },
  login: string,
  given?: string,
): Promise<PasswordReset> {
  const found = await findUserByLogin(deps.store, login);
  if (!found) throw new NotFoundError({ message: `No user ${login}: give a username or an e-mail address.` });
  const password = given ?? generatePassword();
  const user = await updateUser(deps, found.id, { password });
  if (!user) throw new NotFoundError({ message: `No user ${login}: it was deleted meanwhile.` });
  await clearFailures(deps, loginPolicies(deps.config).account, `user:${user.id}`);
  return { user, password, generated: given === undefined };
}
