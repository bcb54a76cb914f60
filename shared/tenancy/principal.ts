import { keys } from '../accounts/keys';
import {
  type App,
  type Organization,
  type OrganizationMember,
  publicUser,
  type Site,
  type SitePermission,
  type StoredUser,
  type User,
} from '../accounts/model';
import type { StoredApiKey } from '../api-keys/model';
import { setBounded } from '../bounded';
import { AuthenticationError, NotFoundError } from '../errors';
import type { OrganizationAccess, Principal } from '../policy/permissions';
import type { SiteAccess } from '../policy/policy';
import { getItems, type Key } from '../store/batch';
import { type Store, strip } from '../store/store';

/** What a request names: the signed-in user's id, the site, the organization and app of its path. */
export interface RequestTarget {
  userId: number | null;
  site: string | null;
  organization: string | null;
  app: string | null;
}

/** Everything the pipeline loads before authorizing: the principal and, for app paths, the app (null if none). */
export interface LoadedRequest {
  principal: Principal;
  /** The stored user (with its token version), for the pipeline's checks; never shown to clients. */
  storedUser: StoredUser | null;
  app: App | null;
}

/**
 * A site's organization never changes (no operation moves a site), so the mapping is kept per container: it lets
 * the membership be read in the same round trip as the site. Everything that can be revoked (the user, the
 * membership, the site permissions) is still read on every request, strongly consistent.
 */
const organizationOfSite = new Map<string, string>();
/** Bound: 10,000 sites (under 1 MB); past it the oldest mapping goes first (read again with the next request). */
export const siteMappingLimit = 10_000;

/** Remembers a site's organization (exported for the bound's test). */
export function rememberSiteOrganization(site: Pick<Site, 'slug' | 'organization_slug'>): void {
  setBounded(organizationOfSite, site.slug, site.organization_slug, siteMappingLimit);
}

/** How many sites' organizations this container remembers. */
export function rememberedSiteOrganizations(): number {
  return organizationOfSite.size;
}

function keysOf(target: RequestTarget, organizationOfTheSite: string | undefined): Key[] {
  const wanted: Key[] = [];
  const { userId } = target;
  if (userId !== null) wanted.push(keys.user(userId));
  if (target.site !== null) {
    wanted.push(keys.site(target.site));
    if (target.app !== null) wanted.push(keys.app(target.site, target.app));
    if (userId !== null) {
      wanted.push(keys.sitePermission(target.site, userId));
      if (organizationOfTheSite) wanted.push(keys.member(organizationOfTheSite, userId));
    }
  }
  if (target.organization !== null) {
    wanted.push(keys.organization(target.organization));
    if (userId !== null) wanted.push(keys.member(target.organization, userId));
  }
  return wanted;
}

type Lookup = (key: Key) => Record<string, unknown> | undefined;

const itemOf = <T>(lookup: Lookup, key: Key): T | undefined => {
  const item = lookup(key);
  return item ? strip<T>(item) : undefined;
};

async function siteAccessOf(
  store: Store,
  lookup: Lookup,
  slug: string,
  user: User | null,
  /** The organization the lookup read the membership of (the mapping known when it started), if any. */
  readOrganization: string | undefined,
): Promise<SiteAccess> {
  const site = itemOf<Site>(lookup, keys.site(slug));
  if (!site) throw new NotFoundError({ message: 'Site not found.', code: 'site_not_found' });
  if (!user) return { site, user: null, organizationRole: null, permissions: new Set() };
  const memberKey = keys.member(site.organization_slug, user.id);
  let membership = itemOf<OrganizationMember>(lookup, memberKey);
  if (readOrganization !== site.organization_slug) {
    // The lookup did not read this organization's membership (the first requests for this site in this container,
    // even when another one learnt the mapping meanwhile): one more read, then the mapping is known.
    membership = itemOf<OrganizationMember>(await getItems(store, [memberKey]), memberKey);
    rememberSiteOrganization(site);
  }
  const permissions = (lookup(keys.sitePermission(slug, user.id))?.permissions ?? []) as SitePermission[];
  return { site, user, organizationRole: membership?.role ?? null, permissions: new Set(permissions) };
}

function organizationAccessOf(lookup: Lookup, slug: string, user: User | null): OrganizationAccess | null {
  const organization = itemOf<Organization>(lookup, keys.organization(slug));
  if (!organization) throw new NotFoundError();
  const membership = user ? itemOf<OrganizationMember>(lookup, keys.member(slug, user.id)) : undefined;
  return { organization, role: membership?.role ?? null };
}

/**
 * Loads who and where a request is in one DynamoDB round trip (a strongly consistent `BatchGetItem`): the user, the
 * site with the user's organization role and site permissions, the path's organization and membership, and the
 * path's app. Unknown sites and organizations are 404s; a missing user is left for the pipeline to refuse.
 */
export async function loadRequest(store: Store, target: RequestTarget): Promise<LoadedRequest> {
  const knownOrganization = target.site === null ? undefined : organizationOfSite.get(target.site);
  const lookup = await getItems(store, keysOf(target, knownOrganization));
  const storedUser =
    target.userId === null ? null : (itemOf<StoredUser>(lookup, keys.user(target.userId)) ?? null);
  // A token whose user is gone or inactive is refused before anything about the site or organization is said.
  if (target.userId !== null && !storedUser?.is_active)
    throw new AuthenticationError({ message: 'User not found or inactive.', code: 'user_inactive' });
  const user = storedUser ? publicUser(storedUser) : null;
  const site =
    target.site === null ? null : await siteAccessOf(store, lookup, target.site, user, knownOrganization);
  const organization =
    target.organization === null ? null : organizationAccessOf(lookup, target.organization, user);
  const app =
    target.site !== null && target.app !== null
      ? (itemOf<App>(lookup, keys.app(target.site, target.app)) ?? null)
      : null;
  return { principal: { user, site, organization }, storedUser, app };
}

/**
 * The request of an API key: what `loadRequest` read for the key's creator, as the key's own principal. The key's
 * permissions cap the creator's current rights on the site (`can`); the principal has no user, so no account,
 * organization or user-centric route takes it for its creator. A key whose site was deleted (and a site of the same
 * slug made since) is refused like an unknown key.
 */
export function keyRequest(loaded: LoadedRequest, key: StoredApiKey): LoadedRequest {
  const { site, organization, user } = loaded.principal;
  if (!user || (site && site.site.created_at !== key.site_created_at))
    throw new AuthenticationError({
      code: 'invalid_api_key',
      message: 'The API key is not valid: it is unknown, revoked or expired.',
    });
  return {
    principal: {
      user: null,
      key: { id: key.id, site: key.site, organization: key.organization_slug, creator: user },
      site: site && { ...site, keyPermissions: new Set(key.permissions) },
      organization,
    },
    storedUser: null,
    app: loaded.app,
  };
}
