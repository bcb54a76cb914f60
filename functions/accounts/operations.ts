import { createApp, listApps } from '../../shared/accounts/apps';
import { memberAudience, memberUserView } from '../../shared/accounts/member-views';
import { type Organization, sitePermissions, type User } from '../../shared/accounts/model';
import {
  addMember,
  createOrganization,
  getMembership,
  getOrganization,
  listMembers,
  listOrganizations,
  listUserMemberships,
} from '../../shared/accounts/organizations';
import { assertRoleChangeAllowed, transferOwnership } from '../../shared/accounts/ownership';
import { passwordProblem } from '../../shared/accounts/password-policy';
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
  updateUser,
} from '../../shared/accounts/users';
import { linkedPage } from '../../shared/api/pagination';
import { created, ok } from '../../shared/api/result';
import { keepCurrentBrowserSession } from '../../shared/auth/browser-sessions';
import { confirmPassword } from '../../shared/auth/login';
import { BadRequestError, NotFoundError, PermissionDeniedError, ValidationError } from '../../shared/errors';
import { requestSiteScope } from '../../shared/events/scope';
import { groupsByMember } from '../../shared/groups/views';
import {
  actingUser,
  currentUser,
  type Operations,
  type RequestContext,
  siteContext,
} from '../../shared/http/context';
import type { TypedOperations } from '../../shared/http/typed-operations';
import { deletionKeys } from '../../shared/lifecycle/keys';
import { finishBeforeReuse } from '../../shared/lifecycle/runner';
import { consumeCall } from '../../shared/limits/rate';
import { allows, type OrganizationAccess } from '../../shared/policy/permissions';
import { allowedActions } from '../../shared/policy/policy';
import { slugify } from '../../shared/slug';
import { apiKeyOperations } from './api-key-operations';
import { currentUserOperations } from './current-user-operations';
import { deletionOperations } from './deletion-operations';
import { groupOperations } from './group-operations';
import type { accountsManifest } from './manifest';
import { organizationMfaOperations } from './mfa-requirement-operations';
import { userAdminOperations } from './user-admin-operations';

/** Any request of the group, whatever its input: for the helpers below, which read none of it. */
type Ctx = RequestContext<unknown, unknown, unknown>;

/** The same answer for an unknown account and for one the caller may not add, so neither can be told apart. */
function userNotFound(): BadRequestError {
  return new BadRequestError({
    code: 'user_not_found',
    message: 'User not found.',
    fields: { user: ['User not found.'] },
  });
}

/** The existing account a members request names (user_id, username or e-mail). */
async function memberToChange(
  ctx: Ctx,
  named: { user_id?: number | undefined; username?: string | undefined; email?: string | undefined },
): Promise<User> {
  const store = ctx.deps.store;
  let user: User | undefined;
  if (named.user_id !== undefined) user = await getUser(store, named.user_id);
  else if (named.username !== undefined) user = await findUserByUsername(store, named.username);
  else if (named.email !== undefined) user = await findUserByEmail(store, named.email);
  else {
    throw new ValidationError({
      fields: {
        non_field_errors: [
          'Name an existing user (user_id, username or email), or give email and password for a new one.',
        ],
      },
    });
  }
  if (!user) throw userNotFound();
  return user;
}

/**
 * A user changing its own password proves it knows the current one (a stolen access token alone must not take
 * the account over); wrong answers count as failed sign-ins of the account.
 */
async function requireCurrentPassword(ctx: Ctx, userId: number, given: string | undefined) {
  if (given === undefined)
    throw ValidationError.field('current_password', 'This field is required.', 'required');
  if (!(await confirmPassword(ctx.deps, userId, given, ctx.clientIp))) {
    throw ValidationError.field('current_password', 'The current password is not correct.', 'wrong_password');
  }
}

function requireSuperuser(user: User): void {
  if (!user.is_superuser) throw new PermissionDeniedError();
}

/** The organization of the path and the caller's role in it (loaded, and the route's permission enforced). */
function organizationOf(ctx: Ctx): OrganizationAccess {
  if (!ctx.organization) throw new Error(`Route ${ctx.route.operationId} is not an organization route`);
  return ctx.organization;
}

export const accountOperations: Operations = {
  ...currentUserOperations,
  ...organizationMfaOperations,

  /**
   * The policy's verdict without setting anything: the same function (`passwordProblem`) and the same known words
   * as where a password is set. Each check costs tens of milliseconds of CPU at most (the estimate's 64-character
   * bound), so calls are limited per client address, or signed-in user, before the estimate runs.
   */
  async checkPassword(ctx) {
    const body = ctx.body;
    const subject = ctx.user ? `user:${ctx.user.id}` : ctx.clientIp ? `ip:${ctx.clientIp}` : 'ip:unknown';
    await consumeCall(
      ctx.deps,
      { scope: 'password-check', maxCalls: ctx.deps.config.pages.passwordChecksPerMinute, windowSeconds: 60 },
      subject,
    );
    const related = [body.username ?? '', body.email ?? '', body.first_name ?? '', body.last_name ?? ''];
    const problem = await passwordProblem(body.password, related);
    return ok({ valid: problem === undefined, password: problem ? [problem] : [] });
  },

  async listUsers(ctx) {
    const search = ctx.query.search?.toLowerCase();
    const users = (await listUsers(ctx.deps.store)).filter(
      (user) =>
        !search || user.username.toLowerCase().includes(search) || user.email.toLowerCase().includes(search),
    );
    return ok(linkedPage(ctx, users));
  },

  async createUser(ctx) {
    return created(
      await createUser(ctx.deps, ctx.body, { scope: requestSiteScope(ctx.headers, ctx.deps.config) }),
    );
  },

  async getUser(ctx) {
    const user = await getUser(ctx.deps.store, Number(ctx.params.user_id));
    if (!user) throw new NotFoundError();
    return ok(user);
  },

  async updateUser(ctx) {
    const caller = currentUser(ctx);
    const id = Number(ctx.params.user_id);
    const { current_password, ...changes } = ctx.body;
    if (changes.password !== undefined && caller.id === id) {
      await requireCurrentPassword(ctx, caller.id, current_password);
    }
    const user = await updateUser(ctx.deps, id, changes);
    if (!user) throw new NotFoundError();
    // The new password ended every other session and token; the browser session that changed it goes on.
    if (changes.password !== undefined && caller.id === id)
      await keepCurrentBrowserSession(ctx.deps, ctx.headers, id);
    return ok(user);
  },

  async listOrganizations(ctx) {
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

  async createOrganization(ctx) {
    const slug = ctx.body.slug ?? slugify(ctx.body.name);
    await finishBeforeReuse(ctx.deps, deletionKeys.organizationsNamed(slug), 'An organization');
    return created(await createOrganization(ctx.deps, currentUser(ctx), ctx.body, ctx.deps.config.quotas));
  },

  async getOrganization(ctx) {
    const { organization, role } = organizationOf(ctx);
    return ok({ ...organization, role });
  },

  async listMembers(ctx) {
    const { organization, role } = organizationOf(ctx);
    const audience = memberAudience(currentUser(ctx), role);
    const [members, groups] = await Promise.all([
      listMembers(ctx.deps.store, organization.slug),
      groupsByMember(ctx.deps.store, organization.slug),
    ]);
    const users = await Promise.all(members.map((member) => getUser(ctx.deps.store, member.user_id)));
    const rows = members.flatMap((member, i) => {
      const user = users[i];
      const memberGroups = groups.get(member.user_id) ?? [];
      return user ? [{ ...member, user: memberUserView(user, audience), groups: memberGroups }] : [];
    });
    return ok(linkedPage(ctx, rows));
  },

  /**
   * Superusers add any account or create one; owners and admins change the roles of members (they will bring
   * people in through invitations). Every account this caller may not add answers as an unknown one.
   */
  async addMember(ctx) {
    const { organization, role: callerRole } = organizationOf(ctx);
    const caller = currentUser(ctx);
    const { user_id, role, ...fields } = ctx.body;
    let user: User;
    let status = 200;
    if (fields.password !== undefined) {
      requireSuperuser(caller);
      assertRoleChangeAllowed(caller, callerRole, undefined, role);
      // A new account needs its e-mail; the schema cannot say so, as naming an existing user needs none.
      const { email } = fields;
      if (email === undefined) throw ValidationError.field('email', 'This field is required.', 'required');
      user = await createUser(ctx.deps, { ...fields, email }, { scope: { organization: organization.slug } });
      status = 201;
    } else {
      user = await memberToChange(ctx, { user_id, ...fields });
      const current = await getMembership(ctx.deps.store, organization.slug, user.id);
      if (!current && !caller.is_superuser) throw userNotFound();
      assertRoleChangeAllowed(caller, callerRole, current, role);
    }
    const member = await addMember(ctx.deps, organization.slug, user.id, role);
    return { status, body: { ...member, user: memberUserView(user, memberAudience(caller, callerRole)) } };
  },

  /** The owner (or a superuser) hands the organization to another member; the previous owner stays as an admin. */
  async transferOwnership(ctx) {
    const { organization } = organizationOf(ctx);
    const caller = currentUser(ctx);
    const { organizationsPerUser } = ctx.deps.config.quotas;
    const updated = await transferOwnership(ctx.deps, organization, ctx.body.user_id, organizationsPerUser);
    const now = await getMembership(ctx.deps.store, organization.slug, caller.id);
    return ok({ ...updated, role: now?.role ?? null });
  },

  async listSites(ctx) {
    const { organization } = organizationOf(ctx);
    return ok(linkedPage(ctx, await listOrganizationSites(ctx.deps.store, organization.slug)));
  },

  async createSite(ctx) {
    const { organization } = organizationOf(ctx);
    const { sitesPerOrganization } = ctx.deps.config.quotas;
    const slug = ctx.body.slug ?? slugify(ctx.body.name);
    await finishBeforeReuse(ctx.deps, deletionKeys.sitesNamed(slug), 'A site');
    return created(
      await createSite(ctx.deps, organization, ctx.body, currentUser(ctx), sitesPerOrganization),
    );
  },

  async listSitePermissions(ctx) {
    const { organization } = organizationOf(ctx);
    const site = await getSite(ctx.deps.store, ctx.params.site_slug ?? '');
    if (!site || site.organization_slug !== organization.slug) throw new NotFoundError();
    return ok(await listSitePermissions(ctx.deps.store, site.slug));
  },

  async setSitePermissions(ctx) {
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

  async getOwnSitePermissions(ctx) {
    const { access } = siteContext(ctx);
    const user = actingUser(ctx);
    // The pipeline's own verdicts (shared/policy/), never a second copy of the rules. An API key answers for
    // itself: its creator's id, and what the key may do (its permissions, capped by its creator's rights).
    const key = ctx.key ?? null;
    const principal = { user: key ? null : user, key, site: access, organization: null };
    return ok({
      site: access.site.slug,
      user_id: user.id,
      is_superuser: !key && user.is_superuser,
      organization_role: key ? null : access.organizationRole,
      permissions: sitePermissions.filter((permission) =>
        (access.keyPermissions ?? access.permissions).has(permission),
      ),
      actions: allowedActions(access),
      social_app_writes: allows('rule:site-owner', principal),
    });
  },

  async listApps(ctx) {
    const { access } = siteContext(ctx);
    return ok(linkedPage(ctx, await listApps(ctx.deps.store, access.site.slug)));
  },

  async createApp(ctx) {
    const { access } = siteContext(ctx);
    // A deleted app's leftovers (keyed by its slug) go before a new app may take the slug.
    await finishBeforeReuse(ctx.deps, deletionKeys.appsOf(access.site.slug), 'An app');
    return created(await createApp(ctx.deps, access.site, ctx.body));
  },

  async getApp(ctx) {
    if (!ctx.app) throw new NotFoundError();
    return ok(ctx.app);
  },

  ...userAdminOperations,
  ...apiKeyOperations,
  ...groupOperations,
  ...deletionOperations,
} satisfies TypedOperations<typeof accountsManifest.routes>;
