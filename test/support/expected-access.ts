import type { Permission } from '../../shared/api/permission';
import type { Identity } from './security-fixture';

/**
 * What a route's declared permission lets an identity do, written from docs/authorization.md rather than read
 * from the enforcing code: 'allowed', or the status of the refusal.
 */
export type Expected = 'allowed' | 401 | 403 | 404;

/** The table of docs/authorization.md, copied rather than imported, so that a change of the policy is noticed. */
const grantedBy: Record<string, readonly string[]> = {
  administer: ['admin_site'],
  configure: ['manage_site', 'admin_site'],
  manage_users: ['manage_site_users', 'admin_site'],
  change: ['change_site', 'admin_site'],
  delete: ['delete_site', 'admin_site'],
  view: ['view_site', 'change_site', 'delete_site', 'manage_site', 'manage_site_users', 'admin_site'],
  access: [
    'access_site',
    'view_site',
    'change_site',
    'delete_site',
    'manage_site',
    'manage_site_users',
    'admin_site',
  ],
};

function siteAllows(who: Identity, action: string): boolean {
  const permissions = grantedBy[action];
  if (!permissions) throw new Error(`Unknown site action ${action}: teach test/support/expected-access.ts`);
  if (who.superuser || who.organizationRole === 'owner' || who.organizationRole === 'admin') return true;
  return permissions.some((permission) => who.sitePermissions.has(permission));
}

function organization(who: Identity, level: string): Expected {
  if (who.superuser) return 'allowed';
  if (who.organizationRole === null) return 404;
  if (level === 'member') return 'allowed';
  if (level === 'admin') return who.organizationRole === 'member' ? 403 : 'allowed';
  if (level === 'owner') return who.organizationRole === 'owner' ? 'allowed' : 403;
  throw new Error(`Unknown organization level ${level}: teach expected-access.ts`);
}

function isSelf(who: Identity, params: Record<string, string>): boolean {
  if (!who.user) return false;
  if (params.user_id !== undefined) return Number(params.user_id) === who.user.id;
  const named = (params.username ?? '').toLowerCase();
  return named === 'me' || named === who.user.username.toLowerCase();
}

/** The outcome class a call of a route with this permission must have for this identity on site A. */
export function expectedOutcome(
  permission: Permission,
  who: Identity,
  params: Record<string, string>,
): Expected {
  if (permission === 'public' || permission === 'rule:site-visitor') return 'allowed';
  if (!who.user) return 401;
  if (permission === 'rule:site-signed-in') return 'allowed';
  if (permission === 'rule:site-owner')
    return who.superuser || who.organizationRole === 'owner' ? 'allowed' : 403;
  if (permission === 'authenticated') return 'allowed';
  if (permission === 'superuser') return who.superuser ? 'allowed' : 403;
  if (permission.startsWith('organization:'))
    return organization(who, permission.slice('organization:'.length));
  if (permission.startsWith('site:'))
    return siteAllows(who, permission.slice('site:'.length)) ? 'allowed' : 403;
  if (permission === 'rule:self-or-superuser' || permission === 'rule:account-change')
    return who.superuser || isSelf(who, params) ? 'allowed' : 404;
  if (permission === 'rule:own-roles-or-view')
    return isSelf(who, params) || siteAllows(who, 'view') ? 'allowed' : 403;
  // The fixture's secret is private: anonymous callers got their 401 above.
  if (permission === 'rule:secret-read') return siteAllows(who, 'view') ? 'allowed' : 403;
  // The sample names a link no identity has: another user's link is not found.
  if (permission === 'rule:own-social-account') return 404;
  // The sample creates a custom type: `configure` is enough.
  if (permission === 'rule:secret-type-create') return siteAllows(who, 'configure') ? 'allowed' : 403;
  // The sample revokes the owner's key: those who administer the site may; anyone else is told it is not found.
  if (permission === 'rule:api-key-revoke') return siteAllows(who, 'administer') ? 'allowed' : 404;
  throw new Error(`Unknown permission ${permission}: teach test/support/expected-access.ts what it allows`);
}

/**
 * Whether a status is in the class `expected` names. Allowed means not refused (401, 403, 429) nor hidden (404: the
 * samples name objects that exist), never a 5xx, and a 2xx for reads, whose samples are always valid.
 */
export function matches(expected: Expected, method: string, status: number): boolean {
  if (status >= 500) return false;
  if (expected !== 'allowed') return status === expected;
  if (method === 'GET') return status >= 200 && status < 300;
  return ![401, 403, 404, 429].includes(status);
}
