import { created, noContent, ok } from '../../shared/api/result';
import type { apiKeyRoutes } from '../../shared/api-keys/routes';
import { createApiKey, listApiKeys, revokeApiKey } from '../../shared/api-keys/service';
import { currentUser } from '../../shared/http/context';
import type { TypedOperations } from '../../shared/http/typed-operations';

/** API keys of a site (shared/api-keys): thin calls, typed from their routes. */
export const apiKeyOperations = {
  async createApiKey(ctx) {
    const { org_slug, site_slug } = ctx.params;
    return created(await createApiKey(ctx.deps, currentUser(ctx), org_slug, site_slug, ctx.body));
  },
  async listApiKeys(ctx) {
    const { org_slug, site_slug } = ctx.params;
    return ok(await listApiKeys(ctx.deps, currentUser(ctx), org_slug, site_slug));
  },
  async revokeApiKey(ctx) {
    const { org_slug, site_slug, key_id } = ctx.params;
    await revokeApiKey(ctx.deps, currentUser(ctx), org_slug, site_slug, key_id);
    return noContent();
  },
} satisfies TypedOperations<typeof apiKeyRoutes>;
