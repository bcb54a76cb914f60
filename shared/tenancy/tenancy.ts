import type { User } from '../accounts/model';
import { getMembership } from '../accounts/organizations';
import { getSite, getSitePermissions } from '../accounts/sites';
import { BadRequestError, NotFoundError } from '../errors';
import type { SiteAccess } from '../policy/policy';
import type { Store } from '../store/store';

export interface TenancySettings {
  baseDomain: string | undefined;
  defaultSite: string | undefined;
}

/**
 * The site a request names: the `X-Site` header, else the `{site}` label of a `{site}.{baseDomain}` host, else the
 * configured default site.
 */
export function siteSlugOf(headers: Record<string, string | undefined>, settings: TenancySettings): string {
  const header = headers['x-site']?.trim();
  if (header) return header.toLowerCase();
  const host = headers.host?.split(':')[0]?.toLowerCase();
  if (host && settings.baseDomain) {
    const suffix = `.${settings.baseDomain.toLowerCase()}`;
    if (host.endsWith(suffix)) {
      const label = host.slice(0, -suffix.length);
      if (label && !label.includes('.')) return label;
    }
  }
  if (settings.defaultSite) return settings.defaultSite;
  throw new BadRequestError(
    'site_required',
    'No site was named: send the X-Site header, use a site host name, or configure DEFAULT_SITE.',
  );
}

/** Resolves the request's site and what the user holds on it; 404 for an unknown site. */
export async function resolveSiteAccess(store: Store, slug: string, user: User | null): Promise<SiteAccess> {
  const site = await getSite(store, slug);
  if (!site) throw new NotFoundError('Site not found.', 'site_not_found');
  if (!user) return { site, user: null, organizationRole: null, permissions: new Set() };
  const [membership, permissions] = await Promise.all([
    getMembership(store, site.organization_slug, user.id),
    getSitePermissions(store, site.slug, user.id),
  ]);
  return { site, user, organizationRole: membership?.role ?? null, permissions: new Set(permissions) };
}
