import { createApp, listApps } from '../../shared/accounts/apps';
import type { Organization, OrganizationRole, SitePermission, User } from '../../shared/accounts/model';
import {
  addMember,
  createOrganization,
  getMembership,
  getOrganization,
  listMembers,
  listOrganizations,
  listUserMemberships,
} from '../../shared/accounts/organizations';
import {
  createSite,
  getSite,
  listOrganizationSites,
  listSitePermissions,
  setSitePermissions,
} from '../../shared/accounts/sites';
import {
  createUser,
  findUserByEmail,
  findUserByUsername,
  getUser,
  listUsers,
  type NewUser,
  type UserChanges,
  updateUser,
} from '../../shared/accounts/users';
import { BadRequestError, NotFoundError, PermissionDeniedError, ValidationError } from '../../shared/errors';
import {
  created,
  currentUser,
  type Operations,
  ok,
  type RequestContext,
  siteContext,
} from '../../shared/http/context';
import { linkedPage, type PageRequest } from '../../shared/http/pagination';
import type { OrganizationAccess } from '../../shared/policy/permissions';

type Ctx<B = unknown, Q = PageRequest> = RequestContext<B, Q>;

/** The organization of the path and the caller's role in it (loaded, and the route's permission enforced). */
function organizationOf(ctx: Ctx<unknown, unknown>): OrganizationAccess {
  if (!ctx.organization) throw new Error(`Route ${ctx.route.operationId} is not an organization route`);
  return ctx.organization;
}

export const accountOperations: Operations = {
  async getCurrentUser(ctx: Ctx) {
    return ok(currentUser(ctx));
  },

  async listUsers(ctx: Ctx<unknown, PageRequest & { search?: string }>) {
    const search = ctx.query.search?.toLowerCase();
    const users = (await listUsers(ctx.deps.store)).filter(
      (user) =>
        !search || user.username.toLowerCase().includes(search) || user.email.toLowerCase().includes(search),
    );
    return ok(linkedPage(ctx, users));
  },

  async createUser(ctx: Ctx<NewUser>) {
    return created(await createUser(ctx.deps, ctx.body));
  },

  async getUser(ctx: Ctx) {
    const user = await getUser(ctx.deps.store, Number(ctx.params.user_id));
    if (!user) throw new NotFoundError();
    return ok(user);
  },

  async updateUser(ctx: Ctx<UserChanges>) {
    const user = await updateUser(ctx.deps, Number(ctx.params.user_id), ctx.body);
    if (!user) throw new NotFoundError();
    return ok(user);
  },

  async listOrganizations(ctx: Ctx) {
    const user = currentUser(ctx);
    const store = ctx.deps.store;
    const organizations = user.is_superuser
      ? await listOrganizations(store)
      : (
          await Promise.all(
            (await listUserMemberships(store, user.id)).map((m) => getOrganization(store, m.organization)),
          )
        ).filter((org): org is Organization => org !== undefined);
    return ok(linkedPage(ctx, organizations));
  },

  async createOrganization(ctx: Ctx<{ name: string; slug?: string }>) {
    return created(await createOrganization(ctx.deps, currentUser(ctx).id, ctx.body));
  },

  async getOrganization(ctx: Ctx) {
    const { organization, role } = organizationOf(ctx);
    return ok({ ...organization, role });
  },

  async listMembers(ctx: Ctx) {
    const { organization } = organizationOf(ctx);
    const members = await listMembers(ctx.deps.store, organization.slug);
    const users = await Promise.all(members.map((member) => getUser(ctx.deps.store, member.user_id)));
    const rows = members.flatMap((member, i) => {
      const user = users[i];
      return user ? [{ ...member, user }] : [];
    });
    return ok(linkedPage(ctx, rows));
  },

  async addMember(ctx: Ctx<NewUser & { user_id?: number; role: OrganizationRole }>) {
    const { organization } = organizationOf(ctx);
    const { user_id, role, ...fields } = ctx.body;
    const store = ctx.deps.store;
    let user: User | undefined;
    let status = 200;
    if (user_id !== undefined) user = await getUser(store, user_id);
    else if (fields.password !== undefined) {
      user = await createUser(ctx.deps, fields);
      status = 201;
    } else if (fields.username !== undefined) user = await findUserByUsername(store, fields.username);
    else if (fields.email !== undefined) user = await findUserByEmail(store, fields.email);
    else {
      throw new ValidationError({
        non_field_errors: [
          'Name an existing user (user_id, username or email), or give email and password for a new one.',
        ],
      });
    }
    if (!user)
      throw new BadRequestError('user_not_found', 'User not found.', {
        fields: { user: ['User not found.'] },
      });
    if (role === 'owner' && !currentUser(ctx).is_superuser && organization.owner_id !== currentUser(ctx).id) {
      throw new PermissionDeniedError();
    }
    const member = await addMember(ctx.deps, organization.slug, user.id, role);
    return { status, body: { ...member, user } };
  },

  async listSites(ctx: Ctx) {
    const { organization } = organizationOf(ctx);
    return ok(linkedPage(ctx, await listOrganizationSites(ctx.deps.store, organization.slug)));
  },

  async createSite(ctx: Ctx<{ name: string; slug?: string }>) {
    const { organization } = organizationOf(ctx);
    return created(await createSite(ctx.deps, organization, ctx.body));
  },

  async listSitePermissions(ctx: Ctx) {
    const { organization } = organizationOf(ctx);
    const site = await getSite(ctx.deps.store, ctx.params.site_slug ?? '');
    if (!site || site.organization_slug !== organization.slug) throw new NotFoundError();
    return ok(await listSitePermissions(ctx.deps.store, site.slug));
  },

  async setSitePermissions(ctx: Ctx<{ permissions: SitePermission[] }>) {
    const { organization } = organizationOf(ctx);
    const site = await getSite(ctx.deps.store, ctx.params.site_slug ?? '');
    if (!site || site.organization_slug !== organization.slug) throw new NotFoundError();
    const userId = Number(ctx.params.user_id);
    if (!(await getMembership(ctx.deps.store, organization.slug, userId))) {
      throw ValidationError.field(
        'user_id',
        'The user is not a member of this organization.',
        'not_a_member',
      );
    }
    return ok(await setSitePermissions(ctx.deps, site.slug, userId, ctx.body.permissions));
  },

  async listApps(ctx: Ctx) {
    const { access } = siteContext(ctx);
    return ok(linkedPage(ctx, await listApps(ctx.deps.store, access.site.slug)));
  },

  async createApp(ctx: Ctx<{ name: string; slug?: string; description?: string }>) {
    const { access } = siteContext(ctx);
    return created(await createApp(ctx.deps, access.site, ctx.body));
  },

  async getApp(ctx: Ctx) {
    if (!ctx.app) throw new NotFoundError();
    return ok(ctx.app);
  },
};
