import { listApps } from '../../shared/accounts/apps';
import type { App, User } from '../../shared/accounts/model';
import { findUserByUsername } from '../../shared/accounts/users';
import { created, ok } from '../../shared/api/result';
import type { Deps } from '../../shared/deps';
import { currentUser, type Operations, type RequestContext, siteContext } from '../../shared/http/context';
import type { TypedOperations } from '../../shared/http/typed-operations';
import { currentUserAlias } from '../../shared/policy/permissions';
import { appRoleOf, createAppRole, deleteAppRole, updateAppRole } from '../../shared/roles/app-roles';
import { bulkAssign, bulkRevoke, existingRoles, existingUsers } from '../../shared/roles/bulk';
import { getRole, loadCatalog } from '../../shared/roles/catalog';
import { roleErrors } from '../../shared/roles/errors';
import { assign, replaceMembers, revoke, setExpiry } from '../../shared/roles/memberships';
import type { StoredAppRole, StoredRole, StoredSiteRole } from '../../shared/roles/model';
import { listRoles, roleHolders, userRoles } from '../../shared/roles/queries';
import type { roleRoutes } from '../../shared/roles/routes';
import { createSiteRole, deleteSiteRole, siteRoleOf, updateSiteRole } from '../../shared/roles/site-roles';
import { action, appRoleView, item, list, roleRef, siteRoleView } from '../../shared/roles/views';

/** A request of the group: the helpers below read only the path parameters. */
type Ctx = RequestContext<unknown, unknown, Readonly<Record<string, string>>>;

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

/** The app of the path, in the request's site (loaded by the pipeline); 404 for an app of another site or none. */
function appOf(ctx: Ctx): App {
  if (!ctx.app) throw roleErrors.appNotFound(ctx.params.app_slug ?? '');
  return ctx.app;
}

async function appsOf(deps: Deps, site: string): Promise<Map<string, App>> {
  return new Map((await listApps(deps.store, site)).map((app) => [app.slug, app]));
}

/** A requested expiry: null (permanent) or a time after now, as ISO 8601 UTC; a past time is a 400. */
function expiryOf(deps: Deps, value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const time = new Date(value);
  if (time.getTime() <= deps.clock().getTime()) throw roleErrors.expiryInPast();
  return time.toISOString();
}

/** Any role of the site by slug; 404 when the slug names none. */
async function roleOf(ctx: Ctx, slug: string): Promise<StoredRole> {
  const role = await getRole(ctx.deps.store, siteContext(ctx).access.site.slug, slug);
  if (!role) throw roleErrors.roleNotFound([slug]);
  return role;
}

/** Users named by a request that must name existing users only; 404 naming the others. */
async function usersNamed(ctx: Ctx, usernames: readonly string[]): Promise<User[]> {
  const { users, missing } = await existingUsers(ctx.deps, usernames);
  if (missing.length > 0) throw roleErrors.userNotFound(missing);
  return users;
}

/** The user of a user-centric path: `me` is the signed-in user. */
async function pathUser(ctx: Ctx): Promise<User> {
  const username = ctx.params.username ?? '';
  if (username === currentUserAlias) return currentUser(ctx);
  const user = await findUserByUsername(ctx.deps.store, username);
  if (!user) throw roleErrors.userNotFound([username]);
  return user;
}

export const roleOperations: Operations = {
  async listAppRoles(ctx) {
    const { access } = siteContext(ctx);
    const app = appOf(ctx);
    const catalog = await loadCatalog(ctx.deps.store, access.site.slug);
    const { page, total } = listRoles(catalog.appRoles(app.slug), ctx.query);
    const apps = new Map([[app.slug, app]]);
    return ok(
      list(
        'Application roles retrieved successfully',
        page.map((role) => appRoleView(role, catalog, apps)),
        total,
      ),
    );
  },

  async getAppRole(ctx) {
    const { access } = siteContext(ctx);
    const app = appOf(ctx);
    const catalog = await loadCatalog(ctx.deps.store, access.site.slug);
    const role = appRoleOf(catalog, app, ctx.params.role_slug ?? '');
    return ok(
      item('Application role retrieved successfully', appRoleView(role, catalog, new Map([[app.slug, app]]))),
    );
  },

  async createAppRole(ctx) {
    const { access } = siteContext(ctx);
    const app = appOf(ctx);
    const role = await createAppRole(ctx.deps, app, ctx.body);
    const catalog = await loadCatalog(ctx.deps.store, access.site.slug);
    return created(
      item('Application role created successfully', appRoleView(role, catalog, new Map([[app.slug, app]]))),
    );
  },

  async updateAppRole(ctx) {
    const { access } = siteContext(ctx);
    if (ctx.body.name !== undefined) throw roleErrors.nameImmutable();
    const app = appOf(ctx);
    const role = await updateAppRole(ctx.deps, app, ctx.params.role_slug ?? '', ctx.body);
    const catalog = await loadCatalog(ctx.deps.store, access.site.slug);
    return ok(
      item('Application role updated successfully', appRoleView(role, catalog, new Map([[app.slug, app]]))),
    );
  },

  async deleteAppRole(ctx) {
    const app = appOf(ctx);
    const slug = ctx.params.role_slug ?? '';
    const { deleted, moved, parent } = await deleteAppRole(ctx.deps, app, slug, ctx.query.remove_child_roles);
    const detail = ctx.query.remove_child_roles
      ? `Deleted ${plural(deleted.length, 'role')}: "${slug}" and ${plural(deleted.length - 1, 'descendant role')}.`
      : `Deleted ${plural(deleted.length, 'role')}: "${slug}".` +
        (moved.length === 0
          ? ''
          : ` ${plural(moved.length, 'child role')} moved ${parent ? `to "${parent.slug}"` : 'to the root'}.`);
    return ok(action('Application role deleted successfully', detail));
  },

  async listSiteRoles(ctx) {
    const { access } = siteContext(ctx);
    const [catalog, apps] = await Promise.all([
      loadCatalog(ctx.deps.store, access.site.slug),
      appsOf(ctx.deps, access.site.slug),
    ]);
    const { page, total } = listRoles(catalog.siteRoles(), ctx.query);
    return ok(
      list(
        'Site roles retrieved successfully',
        page.map((role) => siteRoleView(role, catalog, apps)),
        total,
      ),
    );
  },

  async getSiteRole(ctx) {
    const { access } = siteContext(ctx);
    const [catalog, apps] = await Promise.all([
      loadCatalog(ctx.deps.store, access.site.slug),
      appsOf(ctx.deps, access.site.slug),
    ]);
    const role = siteRoleOf(catalog, ctx.params.slug ?? '');
    return ok(item('Site role retrieved successfully', siteRoleView(role, catalog, apps)));
  },

  async createSiteRole(ctx) {
    const { access } = siteContext(ctx);
    return created(
      item(
        'Site role created successfully',
        await siteRoleResponse(ctx, await createSiteRole(ctx.deps, access.site.slug, ctx.body)),
      ),
    );
  },

  async updateSiteRole(ctx) {
    const { access } = siteContext(ctx);
    const role = await updateSiteRole(ctx.deps, access.site.slug, ctx.params.slug ?? '', ctx.body);
    return ok(item('Site role updated successfully', await siteRoleResponse(ctx, role)));
  },

  async deleteSiteRole(ctx) {
    const { access } = siteContext(ctx);
    const role = await deleteSiteRole(ctx.deps, access.site.slug, ctx.params.slug ?? '');
    return ok({ message: `Site role "${role.slug}" deleted successfully` });
  },

  async assignRoles(ctx) {
    const { access } = siteContext(ctx);
    const expiresAt = expiryOf(ctx.deps, ctx.body.expires_at);
    const outcome = await bulkAssign(ctx.deps, access.site.slug, {
      roles: ctx.body.roles,
      usernames: ctx.body.usernames,
      expiresAt,
      by: currentUser(ctx),
    });
    if (outcome.failures.length === 0) return ok({ message: 'Roles assigned successfully' });
    return ok(partial('assignments', outcome));
  },

  async revokeRoles(ctx) {
    const { access } = siteContext(ctx);
    const outcome = await bulkRevoke(ctx.deps, access.site.slug, ctx.body);
    if (outcome.failures.length === 0) return ok({ message: 'Roles revoked successfully' });
    return ok(partial('revocations', outcome));
  },

  async listRoleUsers(ctx) {
    const { access } = siteContext(ctx);
    const role = await roleOf(ctx, ctx.params.role_slug ?? '');
    const { page, total } = await roleHolders(ctx.deps, access.site.slug, role, ctx.query);
    return ok(list('Role users retrieved successfully', page, total));
  },

  async addRoleUsers(ctx) {
    const { access } = siteContext(ctx);
    const role = await roleOf(ctx, ctx.params.role_slug ?? '');
    const users = await usersNamed(ctx, ctx.body.usernames);
    const result = await assign(
      ctx.deps,
      access.site.slug,
      users.map((user) => ({ user, role })),
      { expiresAt: null, by: currentUser(ctx) },
    );
    if (result.failed.length > 0) throw roleErrors.roleNotFound([role.slug]);
    return ok(
      action(
        'Users assigned to the role successfully',
        `Assigned "${role.slug}" to ${plural(result.assigned.length, 'user')}; ${plural(result.skipped.length, 'user')} already held it.`,
      ),
    );
  },

  async replaceRoleUsers(ctx) {
    const { access } = siteContext(ctx);
    const role = await roleOf(ctx, ctx.params.role_slug ?? '');
    const users = await usersNamed(ctx, ctx.body.usernames);
    const result = await replaceMembers(ctx.deps, access.site.slug, role, users, { by: currentUser(ctx) });
    if (result.failed.length > 0) throw roleErrors.roleNotFound([role.slug]);
    return ok(
      action(
        'Role users replaced successfully',
        `"${role.slug}" is now held by ${plural(users.length, 'user')}: ${result.assigned.length} added, ${result.skipped.length} kept, ${result.removed} removed.`,
      ),
    );
  },

  async updateRoleUsers(ctx) {
    const { access } = siteContext(ctx);
    const expiresAt = expiryOf(ctx.deps, ctx.body.expires_at);
    const role = await roleOf(ctx, ctx.params.role_slug ?? '');
    const users = await usersNamed(ctx, ctx.body.usernames);
    const { missing } = await setExpiry(ctx.deps, access.site.slug, role, users, expiresAt);
    if (missing.length > 0) {
      throw roleErrors.membershipNotFound(
        role.slug,
        missing.map((user) => user.username),
      );
    }
    return ok(
      action(
        'Role memberships updated successfully',
        `The membership of ${plural(users.length, 'user')} in "${role.slug}" now ${expiresAt ? `expires at ${expiresAt}` : 'never expires'}.`,
      ),
    );
  },

  async removeRoleUsers(ctx) {
    const { access } = siteContext(ctx);
    const role = await roleOf(ctx, ctx.params.role_slug ?? '');
    const users = await usersNamed(ctx, ctx.body.usernames);
    const result = await revoke(
      ctx.deps,
      access.site.slug,
      users.map((user) => ({ user, role })),
    );
    return ok(
      action(
        'Users removed from the role successfully',
        `Removed "${role.slug}" from ${plural(result.revoked.length, 'user')}; ${plural(result.skipped.length, 'user')} did not hold it.`,
      ),
    );
  },

  async listUserRoles(ctx) {
    const { access } = siteContext(ctx);
    const user = await pathUser(ctx);
    const roles = await userRoles(ctx.deps, access.site.slug, user.id, ctx.query);
    return ok(item('User roles retrieved successfully', roles));
  },

  async addUserRoles(ctx) {
    const { access } = siteContext(ctx);
    const expiresAt = expiryOf(ctx.deps, ctx.body.expires_at);
    const user = await pathUser(ctx);
    const { roles, missing } = await existingRoles(ctx.deps, access.site.slug, ctx.body.role_slugs);
    if (missing.length > 0) throw roleErrors.roleNotFound(missing);
    const result = await assign(
      ctx.deps,
      access.site.slug,
      roles.map((role) => ({ user, role })),
      { expiresAt, by: currentUser(ctx) },
    );
    if (result.failed.length > 0)
      throw roleErrors.roleNotFound(result.failed.map((grant) => grant.role.slug));
    return ok(
      action(
        'Roles assigned to the user successfully',
        `Assigned ${plural(result.assigned.length, 'role')} to "${user.username}"; ${plural(result.skipped.length, 'role')} already held.`,
      ),
    );
  },

  async removeUserRoles(ctx) {
    const { access } = siteContext(ctx);
    const user = await pathUser(ctx);
    const { roles, missing } = await existingRoles(ctx.deps, access.site.slug, ctx.body.role_slugs);
    if (missing.length > 0) throw roleErrors.roleNotFound(missing);
    const result = await revoke(
      ctx.deps,
      access.site.slug,
      roles.map((role) => ({ user, role })),
    );
    return ok(
      action(
        'Roles removed from the user successfully',
        `Removed ${plural(result.revoked.length, 'role')} from "${user.username}"; ${plural(result.skipped.length, 'role')} not held.`,
      ),
    );
  },

  async listRoleDescendants(ctx) {
    return hierarchy(ctx, 'descendants');
  },

  async listRoleAncestors(ctx) {
    return hierarchy(ctx, 'ancestors');
  },
} satisfies TypedOperations<typeof roleRoutes>;

async function siteRoleResponse(ctx: Ctx, role: StoredSiteRole) {
  const site = siteContext(ctx).access.site.slug;
  const [catalog, apps] = await Promise.all([loadCatalog(ctx.deps.store, site), appsOf(ctx.deps, site)]);
  return siteRoleView(role, catalog, apps);
}

function partial(kind: string, outcome: { done: number; skipped: number; failures: unknown[] }) {
  const succeeded = outcome.done + outcome.skipped;
  return {
    status: 'partial_success',
    message: `${succeeded} of ${succeeded + outcome.failures.length} ${kind} succeeded; ${outcome.failures.length} failed.`,
    data: { failures: outcome.failures },
  };
}

async function hierarchy(ctx: Ctx, direction: 'ancestors' | 'descendants') {
  const { access } = siteContext(ctx);
  const slug = ctx.params.role_slug ?? '';
  const catalog = await loadCatalog(ctx.deps.store, access.site.slug);
  const role = catalog.get(slug);
  if (!role) throw roleErrors.roleNotFound([slug]);
  if (role.kind !== 'app_role') throw roleErrors.notAnAppRole(slug);
  const found: StoredAppRole[] =
    direction === 'ancestors' ? catalog.ancestors(slug) : catalog.descendants(slug);
  return ok(list(`Role ${direction} retrieved successfully`, found.map(roleRef), found.length));
}
