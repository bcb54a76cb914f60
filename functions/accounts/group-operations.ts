import { memberAudience, memberUserView } from '../../shared/accounts/member-views';
import { usersById } from '../../shared/accounts/user-lookup';
import { getUser } from '../../shared/accounts/users';
import { linkedPage } from '../../shared/api/pagination';
import { created, noContent, ok } from '../../shared/api/result';
import { NotFoundError } from '../../shared/errors';
import { createGroup, deleteGroup, listGroups, renameGroup, requireGroup } from '../../shared/groups/groups';
import { addGroupMember, groupMemberships, removeGroupMember } from '../../shared/groups/memberships';
import type { organizationGroupRoutes } from '../../shared/groups/routes';
import { currentUser, type RequestContext } from '../../shared/http/context';
import type { TypedOperations } from '../../shared/http/typed-operations';
import type { OrganizationAccess } from '../../shared/policy/permissions';

type Ctx = RequestContext<unknown, unknown, unknown>;

/** The organization of the path and the caller's role in it (loaded, and the route's permission enforced). */
function organizationOf(ctx: Ctx): OrganizationAccess {
  if (!ctx.organization) throw new Error(`Route ${ctx.route.operationId} is not an organization route`);
  return ctx.organization;
}

/** The path's group of the path's organization: another organization's group is as unknown as a missing one. */
function groupOf(ctx: Ctx, slug: string | undefined) {
  return requireGroup(ctx.deps.store, organizationOf(ctx).organization.slug, slug ?? '');
}

/** Organization groups (shared/groups): thin calls, typed from their routes. */
export const groupOperations = {
  async listGroups(ctx) {
    const { organization } = organizationOf(ctx);
    return ok(linkedPage(ctx, await listGroups(ctx.deps.store, organization.slug)));
  },

  async createGroup(ctx) {
    return created(await createGroup(ctx.deps, organizationOf(ctx).organization, ctx.body));
  },

  async getGroup(ctx) {
    return ok(await groupOf(ctx, ctx.params.group_slug));
  },

  async renameGroup(ctx) {
    const group = await groupOf(ctx, ctx.params.group_slug);
    return ok(await renameGroup(ctx.deps, group, ctx.body.name));
  },

  async deleteGroup(ctx) {
    await deleteGroup(ctx.deps, await groupOf(ctx, ctx.params.group_slug));
    return noContent();
  },

  async listGroupMembers(ctx) {
    const group = await groupOf(ctx, ctx.params.group_slug);
    const audience = memberAudience(currentUser(ctx), organizationOf(ctx).role);
    const page = linkedPage(ctx, await groupMemberships(ctx.deps.store, group));
    const users = await usersById(
      ctx.deps.store,
      page.results.map((membership) => membership.user_id),
    );
    return ok({
      ...page,
      results: page.results.flatMap((membership) => {
        const user = users.get(membership.user_id);
        if (!user) return [];
        const { user_id, added_at } = membership;
        return [{ group: group.slug, user_id, added_at, user: memberUserView(user, audience) }];
      }),
    });
  },

  async addGroupMember(ctx) {
    const group = await groupOf(ctx, ctx.params.group_slug);
    const { membership, added } = await addGroupMember(ctx.deps, group, ctx.body.user_id);
    const user = await getUser(ctx.deps.store, membership.user_id);
    if (!user) throw new NotFoundError();
    const audience = memberAudience(currentUser(ctx), organizationOf(ctx).role);
    const body = {
      group: group.slug,
      user_id: membership.user_id,
      added_at: membership.added_at,
      user: memberUserView(user, audience),
    };
    return added ? created(body) : ok(body);
  },

  async removeGroupMember(ctx) {
    const group = await groupOf(ctx, ctx.params.group_slug);
    if (!(await removeGroupMember(ctx.deps.store, group, Number(ctx.params.user_id))))
      throw new NotFoundError();
    return noContent();
  },
} satisfies TypedOperations<typeof organizationGroupRoutes>;
