import { BadRequestError } from '../errors';
import { slugMaxLength, slugPattern } from '../slug';

export interface TenancySettings {
  baseDomain: string | undefined;
  defaultSite: string | undefined;
}

const slug = new RegExp(slugPattern);

/**
 * A site name a client sent, checked against the one rule of slugs before it goes anywhere (a DynamoDB key, the
 * access cache, a log line): at most `slugMaxLength` characters of lower-case letters, digits and single hyphens.
 * Anything else is a 400 naming where the name came from, never a 500 and never a key built from arbitrary text.
 */
function checkedSite(name: string, source: 'X-Site header' | 'host name'): string {
  if (name.length <= slugMaxLength && slug.test(name)) return name;
  throw new BadRequestError({
    code: 'invalid_site',
    title: 'Invalid site',
    message: `The ${source} does not name a site: a site's slug is 1 to ${slugMaxLength} lower-case letters, digits and single hyphens.`,
  });
}

/**
 * The site a request names: the `X-Site` header, else the `{site}` label of a `{site}.{baseDomain}` host, else the
 * configured default site. A named site that cannot be a slug is a 400 (see `checkedSite`).
 */
export function siteSlugOf(headers: Record<string, string | undefined>, settings: TenancySettings): string {
  const header = headers['x-site']?.trim();
  if (header) return checkedSite(header.toLowerCase(), 'X-Site header');
  const host = headers.host?.split(':')[0]?.toLowerCase();
  if (host && settings.baseDomain) {
    const suffix = `.${settings.baseDomain.toLowerCase()}`;
    if (host.endsWith(suffix)) {
      const label = host.slice(0, -suffix.length);
      if (label && !label.includes('.')) return checkedSite(label, 'host name');
    }
  }
  if (settings.defaultSite) return settings.defaultSite;
  throw new BadRequestError({
    code: 'site_required',
    message: 'No site was named: send the X-Site header, use a site host name, or configure DEFAULT_SITE.',
  });
}
