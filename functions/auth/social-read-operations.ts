import { linkedPage } from '../../shared/api/pagination';
import { ok } from '../../shared/api/result';
import { currentUser, siteContext } from '../../shared/http/context';
import type { TypedOperations } from '../../shared/http/typed-operations';
import { listSocialAccounts } from '../../shared/social/accounts';
import { listSocialApps } from '../../shared/social/apps';
import type { socialRoutes } from '../../shared/social/routes';

export const siteOf = (ctx: Parameters<typeof siteContext>[0]) => siteContext(ctx).access.site.slug;

type ReadRoutes = Extract<
  (typeof socialRoutes)[number],
  { operationId: 'listSocialApps' | 'listSocialAccounts' }
>[];

/**
 * The social reads the hosted pages show (the public app list, the caller's links), in a module of their own: the
 * pages (pages/api.ts) run them without bundling provider login (discovery, token exchange, JWT checks).
 */
export const socialReadOperations = {
  async listSocialApps(ctx) {
    return ok(await listSocialApps(ctx.deps, siteOf(ctx), ctx.query));
  },

  async listSocialAccounts(ctx) {
    return ok(linkedPage(ctx, await listSocialAccounts(ctx.deps, currentUser(ctx).id)));
  },
} satisfies TypedOperations<ReadRoutes>;
