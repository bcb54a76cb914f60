import type { Organization, OrganizationRole, User } from '../accounts/model';
import type { Permission, RuleName, SiteAction } from '../api/permission';
import { AuthenticationError, NotFoundError, PermissionDeniedError } from '../errors';
import { can, canAdministerOrganization, type SiteAccess, siteActions } from './policy';

/** The organization of an organization route and the caller's role in it. */
export interface OrganizationAccess {
  organization: Organization;
  role: OrganizationRole | null;
}

/**
 * An API key as a principal (docs/security.md, "API keys"): it belongs to one site of one organization and acts
 * for its creator there, within its own permissions and its creator's current rights.
 */
export interface KeyPrincipal {
  id: string;
  site: string;
  organization: string;
  /** The user who created the key: the writes the key makes are theirs (created_by of a secret, say). */
  creator: User;
}

/** Who is asking and what the pipeline loaded for the route: the site (site routes), the organization. */
export interface Principal {
  /** The signed-in user; null for an API key, which is a principal of its own (`key`). */
  user: User | null;
  site: SiteAccess | null;
  organization: OrganizationAccess | null;
  key?: KeyPrincipal | null | undefined;
}

/** The request input a rule may read (after validation). */
export interface RuleInput {
  params: Readonly<Record<string, string>>;
  body: unknown;
}

/** The alias of the signed-in user in user-centric role paths. */
export const currentUserAlias = 'me';

const ownUserId = (user: User, input: RuleInput) => Number(input.params.user_id) === user.id;

/** Another user's account is not found (404), never shown: its existence is not revealed. */
function selfOrSuperuser(user: User, input: RuleInput): void {
  if (!user.is_superuser && !ownUserId(user, input)) throw new NotFoundError();
}

const rules = {
  /** A user account: superusers, or the user itself. */
  'self-or-superuser': {
    description: 'superusers, or the user itself',
    check: (principal: Principal, input: RuleInput) => selfOrSuperuser(signedIn(principal), input),
  },
  /** Changing an account: superusers, or the user itself; the flags only by superusers. */
  'account-change': {
    description: 'superusers, or the user itself (`is_superuser` and `is_active`: superusers only)',
    check: (principal: Principal, input: RuleInput) => {
      const user = signedIn(principal);
      selfOrSuperuser(user, input);
      const body = (input.body ?? {}) as Record<string, unknown>;
      if (!user.is_superuser && (body.is_superuser !== undefined || body.is_active !== undefined))
        throw new PermissionDeniedError();
    },
  },
  /** A user's roles on the site: one's own for any signed-in user, whatever they hold; others' need `view`. */
  'own-roles-or-view': {
    description: 'any signed-in user for their own roles (`me`); `view` on the site for anyone else',
    check: (principal: Principal, input: RuleInput) => {
      const user = signedIn(principal);
      const named = (input.params.username ?? '').trim().toLowerCase();
      if (named === currentUserAlias || named === user.username.trim().toLowerCase()) return;
      requireSite(principal, 'view');
    },
  },
  /** A secret (docs/secrets.md): anyone may ask; a signed-in caller needs `view`; non-public values need a user. */
  'secret-read': {
    description:
      'anyone without a token (public secrets only: 401 for private and sensitive ones); `view` on the site with one',
    check: (principal: Principal) => {
      if (principal.user) requireSite(principal, 'view');
    },
  },
  /** Creating a secret type: `configure` on the site; a system type only by superusers (docs/secrets.md). */
  'secret-type-create': {
    description: '`configure` on the site; `type: system` superusers only',
    check: (principal: Principal, input: RuleInput) => {
      requireSite(principal, 'configure');
      const body = (input.body ?? {}) as Record<string, unknown>;
      if (body.type === 'system' && !principal.user?.is_superuser) throw new PermissionDeniedError();
    },
  },
  /** Anyone on the request's site (the public social app list, provider login): a token is read when sent. */
  'site-visitor': {
    description: "anyone (no token needed); the request's site must exist",
    check: () => {},
  },
  /** Any signed-in user, on the request's site (a social app's detail). */
  'site-signed-in': {
    description: "any signed-in user; the request's site must exist",
    check: (principal: Principal) => {
      signedIn(principal);
    },
  },
  /** Social apps are written by superusers and the owner of the site's organization only (doc 1). */
  'site-owner': {
    description: "superusers, or the owner of the site's organization",
    check: (principal: Principal) => {
      const user = signedIn(principal);
      if (!user.is_superuser && principal.site?.organizationRole !== 'owner')
        throw new PermissionDeniedError();
    },
  },
  /** One of the caller's own linked provider accounts: the service answers 404 for anyone else's (it reads it). */
  'own-social-account': {
    description:
      "any signed-in user, for their own linked provider accounts (another user's is not found, 404)",
    check: (principal: Principal) => {
      signedIn(principal);
    },
  },
  /**
   * Revoking an API key: its creator, and those who administer its site (`managesAllKeys` in policy.ts); the
   * service reads the key and asks the policy, and answers 404 to anyone else (the key is not shown to them).
   */
  'api-key-revoke': {
    description:
      "the key's creator, and those who administer its site (superusers, the organization's owner and admins, `admin_site`); anyone else: 404",
    check: (principal: Principal) => {
      signedIn(principal);
    },
  },
} as const satisfies Record<RuleName, { description: string; check: (p: Principal, i: RuleInput) => void }>;

/** Rules decided on the request's site. */
const siteRules: readonly Permission[] = [
  'rule:own-roles-or-view',
  'rule:secret-read',
  'rule:secret-type-create',
  'rule:site-visitor',
  'rule:site-signed-in',
  'rule:site-owner',
];

/** Rules that let anonymous callers through: a token is still read when one is sent. */
const anonymousRules: readonly Permission[] = ['rule:secret-read', 'rule:site-visitor'];

function signedIn(principal: Principal): User {
  if (!principal.user) throw new AuthenticationError();
  return principal.user;
}

function requireSite(principal: Principal, action: SiteAction): void {
  const access = principal.site;
  if (!access) throw new Error('A site permission was declared on a route that resolves no site');
  if (!can(access, action)) throw new PermissionDeniedError();
}

type OrganizationLevel = 'member' | 'admin' | 'owner';

function requireOrganization(principal: Principal, level: OrganizationLevel): void {
  const user = signedIn(principal);
  const found = principal.organization;
  // Not a member: the organization is not shown at all.
  if (!found || (found.role === null && !user.is_superuser)) throw new NotFoundError();
  if (level === 'admin' && !canAdministerOrganization(user, found.role)) throw new PermissionDeniedError();
  if (level === 'owner' && !user.is_superuser && found.role !== 'owner') throw new PermissionDeniedError();
}

const keyRefused = () =>
  new PermissionDeniedError({
    code: 'api_key_not_allowed',
    message: 'An API key cannot use this route: it acts only on its own site, within its permissions.',
  });

/** A key acts on its own site only: a request naming another one (X-Site) is refused (403). */
export function requireKeySite(key: Pick<KeyPrincipal, 'site'>, site: string | null): void {
  if (site !== null && site !== key.site)
    throw new PermissionDeniedError({
      code: 'api_key_site',
      message: 'This API key belongs to another site: it acts only on its own.',
    });
}

/**
 * The site action a key needs for a permission it may pass (null: the site alone), undefined for one it may not.
 */
function keySiteAction(permission: Permission): SiteAction | null | undefined {
  if (permission.startsWith('site:')) return permission.slice('site:'.length) as SiteAction;
  if (permission === 'rule:secret-read') return 'view';
  if (permission === 'rule:site-visitor' || permission === 'rule:site-signed-in') return null;
  return undefined;
}

/**
 * The permissions an API key may pass: site actions (its permissions capped by its creator's current rights, in
 * `can`) and the site rules that need no user of its own. Everything else is refused: organization routes (404 for
 * another organization, as for a non-member; 403 for its own), account routes, user-centric role routes,
 * superuser routes, and so creating keys and inviting people.
 */
function enforceKey(permission: Permission, principal: Principal, key: KeyPrincipal): void {
  if (permission.startsWith('organization:')) {
    if (principal.organization?.organization.slug !== key.organization) throw new NotFoundError();
    throw keyRefused();
  }
  const action = keySiteAction(permission);
  if (action === undefined) throw keyRefused();
  const access = principal.site;
  if (!access) throw keyRefused();
  requireKeySite(key, access.site.slug);
  if (action) requireSite(principal, action);
}

/** Whether a route's permission needs a signed-in user (401 without one). */
export function needsUser(permission: Permission): boolean {
  return permission !== 'public' && !anonymousRules.includes(permission);
}

/** Whether a route reads the caller's token when one is sent (every route but the public ones). */
export function readsUser(permission: Permission): boolean {
  return permission !== 'public';
}

/** Whether the permission is decided on the request's site (the pipeline resolves it first). */
export function isSitePermission(permission: Permission): boolean {
  return permission.startsWith('site:') || siteRules.includes(permission);
}

/** Whether the permission is decided on the path's organization. */
export function isOrganizationPermission(permission: Permission): boolean {
  return permission.startsWith('organization:');
}

/**
 * Enforces a route's permission for the principal: 401 without a user where one is needed, 404 for an
 * organization the caller is not in, 403 otherwise. Returns normally when the call is allowed.
 */
export function enforce(permission: Permission, principal: Principal, input: RuleInput): void {
  if (permission === 'public') return;
  if (principal.key) {
    enforceKey(permission, principal, principal.key);
    return;
  }
  if (anonymousRules.includes(permission) && !principal.user) {
    rules[permission.slice('rule:'.length) as RuleName].check(principal, input);
    return;
  }
  const user = signedIn(principal);
  if (!user.is_active)
    throw new AuthenticationError({ message: 'User not found or inactive.', code: 'user_inactive' });
  if (permission === 'authenticated') return;
  if (permission === 'superuser') {
    if (!user.is_superuser) throw new PermissionDeniedError();
    return;
  }
  if (permission.startsWith('organization:')) {
    requireOrganization(principal, permission.slice('organization:'.length) as OrganizationLevel);
    return;
  }
  if (permission.startsWith('site:')) {
    requireSite(principal, permission.slice('site:'.length) as SiteAction);
    return;
  }
  rules[permission.slice('rule:'.length) as RuleName].check(principal, input);
}

/** Whether `permission` lets the principal through: `enforce`'s verdict, as a boolean (the caller's own view). */
export function allows(
  permission: Permission,
  principal: Principal,
  input: RuleInput = { params: {}, body: undefined },
): boolean {
  try {
    enforce(permission, principal, input);
    return true;
  } catch (error) {
    if (
      error instanceof AuthenticationError ||
      error instanceof PermissionDeniedError ||
      error instanceof NotFoundError
    )
      return false;
    throw error;
  }
}

/** A reader's sentence for a permission (the OpenAPI description and docs/authorization.md). */
export function describePermission(permission: Permission): string {
  if (permission === 'public') return 'anyone (no token)';
  if (permission === 'authenticated') return 'any signed-in user';
  if (permission === 'superuser') return 'superusers';
  if (permission === 'organization:member') return "the organization's members, superusers";
  if (permission === 'organization:admin') return "the organization's owner and admins, superusers";
  if (permission === 'organization:owner') return "the organization's owner, superusers";
  if (permission.startsWith('site:')) {
    const action = permission.slice('site:'.length) as SiteAction;
    return `\`${action}\` on the site (${siteActions[action].join(', ')}; organization owners and admins, superusers)`;
  }
  return rules[permission.slice('rule:'.length) as RuleName].description;
}

/** Every permission a route may declare, for the route-table test. */
export function isPermission(value: string): value is Permission {
  const plain = ['public', 'authenticated', 'superuser'];
  if (
    plain.includes(value) ||
    ['organization:member', 'organization:admin', 'organization:owner'].includes(value)
  )
    return true;
  if (value.startsWith('site:')) return value.slice(5) in siteActions;
  if (value.startsWith('rule:')) return value.slice(5) in rules;
  return false;
}
