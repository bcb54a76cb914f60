import type { CreationScope } from '../accounts/user-creation-events';
import type { Config } from '../config';
import { slugMaxLength, slugPattern } from '../slug';
import { siteSlugOf } from '../tenancy/tenancy';

/**
 * The scope of a user created by a request that is not a site route (the superuser's `POST /api/cloud/users/`):
 * the site the request names (X-Site, site host, DEFAULT_SITE) if it names one; otherwise none, and no
 * subscription fires. A name that cannot be a site's slug is no site (it never reaches a DynamoDB key).
 */
export function requestSiteScope(
  headers: Record<string, string | undefined>,
  config: Config,
): CreationScope | undefined {
  let site: string;
  try {
    site = siteSlugOf(headers, config);
  } catch {
    return undefined;
  }
  return site.length <= slugMaxLength && new RegExp(slugPattern).test(site) ? { site } : undefined;
}
