import { getOrganization, listUserMemberships } from '../../shared/accounts/organizations';
import type { userAdminRoutes } from '../../shared/accounts/routes';
import { getUser } from '../../shared/accounts/users';
import { linkedPage } from '../../shared/api/pagination';
import { ok } from '../../shared/api/result';
import { NotFoundError } from '../../shared/errors';
import type { TypedOperations } from '../../shared/http/typed-operations';
import { sendPasswordResetFor } from '../../shared/recovery/password-reset';

/**
 * A superuser's look after another account (the console's Users screen, docs/console.md): a reset link sent to the
 * person, and the organizations they belong to. The route's permission (`superuser`) is the policy's.
 */
export const userAdminOperations = {
  async sendUserPasswordReset(ctx) {
    return ok(await sendPasswordResetFor(ctx.deps, Number(ctx.params.user_id)), 202);
  },

  async listUserOrganizations(ctx) {
    const id = Number(ctx.params.user_id);
    const store = ctx.deps.store;
    if (!(await getUser(store, id))) throw new NotFoundError();
    const memberships = await listUserMemberships(store, id);
    const organizations = await Promise.all(
      memberships.map(async (membership) => {
        const organization = await getOrganization(store, membership.organization);
        return organization && { ...organization, role: membership.role };
      }),
    );
    const found = organizations.filter((organization) => organization !== undefined);
    const sorted = found.sort((a, b) => a.slug.localeCompare(b.slug));
    // The page's links name the path's user as the path has it.
    return ok(linkedPage({ ...ctx, params: { user_id: String(id) } }, sorted));
  },
} satisfies TypedOperations<typeof userAdminRoutes>;
