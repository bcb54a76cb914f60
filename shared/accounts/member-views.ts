import type { OrganizationRole, User } from './model';
import { publicUser } from './model';

/**
 * What one member of an organization may see of another. Plain members see who is in the organization (names);
 * owners and admins also see how to reach them and whether the account is in use (e-mail, active flag, dates);
 * only superusers see platform fields (uuid, superuser flag).
 */
export type MemberAudience = 'member' | 'administrator' | 'superuser';

export type MemberUserView = Partial<User> & Pick<User, 'id' | 'username' | 'first_name' | 'last_name'>;

/** The audience a caller belongs to in an organization where it holds `role`. */
export function memberAudience(caller: User, role: OrganizationRole | null): MemberAudience {
  if (caller.is_superuser) return 'superuser';
  return role === 'owner' || role === 'admin' ? 'administrator' : 'member';
}

/** The fields of `user` shown to `audience` in member lists and member answers. */
export function memberUserView(user: User, audience: MemberAudience): MemberUserView {
  if (audience === 'superuser') return publicUser(user);
  const names = {
    id: user.id,
    username: user.username,
    first_name: user.first_name,
    last_name: user.last_name,
  };
  if (audience === 'member') return names;
  return {
    ...names,
    email: user.email,
    is_active: user.is_active,
    date_joined: user.date_joined,
    last_login: user.last_login,
  };
}
