import { ok } from '../../shared/api/result';
import { type RequestContext, siteContext } from '../../shared/http/context';

/** The public route of the site's name: what a login page shows of the site, and nothing else. */
export const siteOperations = {
  async siteName(ctx: RequestContext) {
    const { site } = siteContext(ctx).access;
    return ok({ slug: site.slug, name: site.name });
  },
};
