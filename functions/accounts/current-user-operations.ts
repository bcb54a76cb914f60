import { publicUser } from '../../shared/accounts/model';
import { ok } from '../../shared/api/result';
import { currentUser, type RequestContext } from '../../shared/http/context';

/**
 * `GET /api/cloud/users/me/` in a module of its own: the hosted pages (pages/api.ts) run it without bundling the
 * rest of the accounts group (organizations, sites, members, password changes).
 */
export const currentUserOperations = {
  async getCurrentUser(ctx: RequestContext) {
    return ok(publicUser(currentUser(ctx)));
  },
};
