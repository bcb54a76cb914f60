import { BadRequestError } from '../errors';

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
  throw new BadRequestError({
    code: 'site_required',
    message: 'No site was named: send the X-Site header, use a site host name, or configure DEFAULT_SITE.',
  });
}
