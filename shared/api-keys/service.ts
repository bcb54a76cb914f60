import { randomUUID } from 'node:crypto';
import type { SitePermission, User } from '../accounts/model';
import type { Clock } from '../clock';
import { ConflictError, NotFoundError, PermissionDeniedError, ValidationError } from '../errors';
import { summarize } from '../field-errors';
import {
  keyPermissions,
  managesKey,
  mayGrantAnyAppRole,
  mayGrantToKey,
  type SiteAccess,
} from '../policy/policy';
import { holdsRole } from '../roles/access';
import { loadCatalog } from '../roles/catalog';
import type { Store } from '../store/store';
import { loadRequest } from '../tenancy/principal';
import { type ApiKeyView, apiKeysPerSite, apiKeyView, newApiKeySecret, type StoredApiKey } from './model';
import { deleteApiKey, putApiKey, siteApiKey, siteApiKeys } from './repository';
import { forgetApiKey } from './resolution';

export interface ApiKeyDeps {
  readonly store: Store;
  readonly clock: Clock;
}

/** The body of a new key (shared/api-keys/schemas.ts). */
export interface NewApiKey {
  name: string;
  permissions: SitePermission[];
  app_roles?: string[] | undefined;
  expires_at?: string | undefined;
}

const fieldError = (field: string, message: string) => {
  const fields = { [field]: [message] };
  return new ValidationError({ fields, message: summarize(fields) });
};

/**
 * What the caller holds on the path's site, read now (strongly consistent): the site must be one of the path's
 * organization (another organization's site is as unknown as a missing one).
 */
async function callerAccess(deps: ApiKeyDeps, caller: User, org: string, site: string): Promise<SiteAccess> {
  const loaded = await loadRequest(deps.store, { userId: caller.id, site, organization: null, app: null });
  const access = loaded.principal.site;
  if (!access || access.site.organization_slug !== org)
    throw new NotFoundError({ message: 'Site not found.', code: 'site_not_found' });
  return access;
}

/** Refuses permissions keys may not hold (400) and those the creator could not grant (403). */
function checkPermissions(access: SiteAccess, permissions: readonly SitePermission[]): void {
  const forbidden = permissions.filter((permission) => !keyPermissions.includes(permission));
  if (forbidden.length > 0)
    throw fieldError(
      'permissions',
      `An API key cannot hold ${forbidden.join(', ')}: keys never manage users or administer a site.`,
    );
  const beyond = permissions.filter((permission) => !mayGrantToKey(access, permission));
  if (beyond.length > 0)
    throw new PermissionDeniedError({
      code: 'api_key_beyond_creator',
      message: `You cannot give a key permissions beyond your own: ${beyond.join(', ')}.`,
    });
}

/** Refuses app roles the site does not have (400) and those the creator neither holds nor may assign (403). */
async function checkAppRoles(deps: ApiKeyDeps, access: SiteAccess, roles: readonly string[]): Promise<void> {
  if (roles.length === 0) return;
  const catalog = await loadCatalog(deps.store, access.site.slug);
  const unknown = roles.filter((slug) => !catalog.appRole(slug));
  if (unknown.length > 0)
    throw fieldError('app_roles', `No application role of this site is named ${unknown.join(', ')}.`);
  if (mayGrantAnyAppRole(access)) return;
  const user = access.user as User;
  const now = deps.clock();
  const held = await Promise.all(
    roles.map((slug) => holdsRole(deps.store, access.site.slug, user.id, slug, now)),
  );
  const lacking = roles.filter((_, index) => !held[index]);
  if (lacking.length > 0)
    throw new PermissionDeniedError({
      code: 'api_key_beyond_creator',
      message: `You cannot give a key application roles you do not hold: ${lacking.join(', ')}.`,
    });
}

/** Creates a key of the path's site for the caller: its view and, this once, the key itself. */
export async function createApiKey(
  deps: ApiKeyDeps,
  creator: User,
  org: string,
  site: string,
  body: NewApiKey,
): Promise<ApiKeyView & { key: string }> {
  const access = await callerAccess(deps, creator, org, site);
  const now = deps.clock();
  // What no key may be first (400, naming the field), then what this creator may not grant (403).
  if (body.expires_at !== undefined && Date.parse(body.expires_at) <= now.getTime())
    throw fieldError('expires_at', 'The expiry must be in the future.');
  checkPermissions(access, body.permissions);
  const appRoles = body.app_roles ?? [];
  await checkAppRoles(deps, access, appRoles);
  if ((await siteApiKeys(deps.store, site)).length >= apiKeysPerSite)
    throw new ConflictError({
      code: 'api_key_limit',
      message: `A site has at most ${apiKeysPerSite} API keys: revoke one first.`,
    });
  const secret = newApiKeySecret();
  const stored: StoredApiKey = {
    id: randomUUID(),
    name: body.name,
    prefix: secret.prefix,
    hash: secret.hash,
    site,
    site_created_at: access.site.created_at,
    organization_slug: org,
    permissions: [...body.permissions],
    app_roles: [...appRoles],
    created_by: creator.id,
    created_by_username: creator.username,
    created_at: now.toISOString(),
    expires_at: body.expires_at === undefined ? null : new Date(body.expires_at).toISOString(),
    last_used_at: null,
  };
  await putApiKey(deps.store, stored);
  return { ...apiKeyView(stored), key: secret.key };
}

/** The site's keys the caller may see: all of them for those who administer the site, else their own. */
export async function listApiKeys(
  deps: ApiKeyDeps,
  caller: User,
  org: string,
  site: string,
): Promise<ApiKeyView[]> {
  const access = await callerAccess(deps, caller, org, site);
  const keys = await siteApiKeys(deps.store, site);
  return keys.filter((key) => managesKey(access, key.created_by)).map(apiKeyView);
}

/** Revokes a key: at once here, within a second elsewhere (resolution.ts). Another's key is not found unless the caller administers the site. */
export async function revokeApiKey(
  deps: ApiKeyDeps,
  caller: User,
  org: string,
  site: string,
  id: string,
): Promise<void> {
  const access = await callerAccess(deps, caller, org, site);
  const key = await siteApiKey(deps.store, site, id);
  const notFound = () => new NotFoundError({ message: 'API key not found.', code: 'api_key_not_found' });
  if (!key || !managesKey(access, key.created_by)) throw notFound();
  if (!(await deleteApiKey(deps.store, key))) throw notFound();
  // This container refuses it from the next request; the others within `apiKeyCacheMs`.
  forgetApiKey(key.hash);
}
