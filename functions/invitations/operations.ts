import { usersById } from '../../shared/accounts/user-lookup';
import { getUser } from '../../shared/accounts/users';
import { matches } from '../../shared/api/listing';
import { linkedPage } from '../../shared/api/pagination';
import { created, noContent, ok } from '../../shared/api/result';
import { NotFoundError, ValidationError } from '../../shared/errors';
import { currentUser, type RequestContext } from '../../shared/http/context';
import type { TypedOperations } from '../../shared/http/typed-operations';
import { acceptInvitation } from '../../shared/invitations/acceptance';
import type { StoredInvitation } from '../../shared/invitations/model';
import { deleteInvitation, getInvitation, listInvitations } from '../../shared/invitations/repository';
import type { invitationRoutes } from '../../shared/invitations/routes';
import { createInvitation, resendInvitation } from '../../shared/invitations/service';
import { invitationView, listedInvitationView } from '../../shared/invitations/views';
import type { OrganizationAccess } from '../../shared/policy/permissions';
import { invitationReadOperations, pendingInvitation } from './details-operations';
import { publicAttempt } from './limits';

type Ctx = RequestContext<unknown, unknown, unknown>;

function organizationOf(ctx: Ctx): OrganizationAccess {
  if (!ctx.organization) throw new Error(`Route ${ctx.route.operationId} has no organization`);
  return ctx.organization;
}

/** The organization's invitation of a path's uuid; 404 for another organization's, unknown or malformed. */
async function ownInvitation(ctx: Ctx, uuid: string): Promise<StoredInvitation> {
  const invitation = await getInvitation(ctx.deps.store, uuid);
  if (!invitation || invitation.organization_slug !== organizationOf(ctx).organization.slug)
    throw new NotFoundError();
  return invitation;
}

/**
 * The answer to a resend of anything but a pending invitation of the organization: the specification's 400 naming
 * `user_id`, its name of the path segment that `{invitation_id}` is here.
 */
const nothingPending = () =>
  ValidationError.field('user_id', 'No pending invitation exists with this uuid.', 'no_pending_invitation');

export const invitationOperations = {
  async createInvitation(ctx) {
    const { organization } = organizationOf(ctx);
    const inviter = currentUser(ctx);
    const { invitation } = await createInvitation(ctx.deps, ctx.log, organization, inviter, ctx.body);
    // The spec's create response shows no invitee yet.
    return created({ ...invitationView(invitation, undefined, inviter), invitee: null, invitee_user: null });
  },

  async listInvitations(ctx) {
    const { organization } = organizationOf(ctx);
    const { invitee__is_active: accepted, search, ordering } = ctx.query;
    const all = await listInvitations(ctx.deps.store, organization.slug);
    const chosen = all
      .filter((invitation) => accepted === undefined || invitation.used === accepted)
      .filter((invitation) => matches(search, invitation.invitee_identifier));
    if (ordering === '-created') chosen.reverse();
    const page = linkedPage(ctx, chosen);
    const invitees = await usersById(
      ctx.deps.store,
      page.results.map((invitation) => invitation.invitee),
    );
    return ok({
      ...page,
      results: page.results.map((invitation) =>
        listedInvitationView(invitation, invitees.get(invitation.invitee)),
      ),
    });
  },

  async getInvitation(ctx) {
    const invitation = await ownInvitation(ctx, ctx.params.uuid);
    const [invitee, inviter] = await Promise.all([
      getUser(ctx.deps.store, invitation.invitee),
      getUser(ctx.deps.store, invitation.invited_by),
    ]);
    return ok(invitationView(invitation, invitee, inviter));
  },

  async deleteInvitation(ctx) {
    const { organization } = organizationOf(ctx);
    if (!(await deleteInvitation(ctx.deps.store, organization.slug, ctx.params.uuid)))
      throw new NotFoundError();
    return noContent();
  },

  async resendInvitation(ctx) {
    // The path's `{invitation_id}` (the specification's `{user_id}` segment) is the invitation's uuid: an invitee's
    // user id is not shown before acceptance (it would tell an existing account from a new one), so a user id names
    // nothing here.
    const invitation = await getInvitation(ctx.deps.store, ctx.params.invitation_id);
    const own = invitation?.organization_slug === organizationOf(ctx).organization.slug;
    if (!invitation || !own || invitation.used) throw nothingPending();
    const invitee = await getUser(ctx.deps.store, invitation.invitee);
    const sent = await resendInvitation(
      ctx.deps,
      ctx.log,
      invitation,
      invitee?.is_active ? 'sign-in' : 'first-time-setup',
    );
    if (sent === undefined) throw nothingPending();
    return ok(
      sent
        ? {
            status: 'sent',
            message: `The invitation e-mail was sent again to ${invitation.invitee_identifier}.`,
          }
        : { status: 'failed', message: 'The invitation e-mail could not be sent; try again later.' },
    );
  },

  ...invitationReadOperations,

  async acceptInvitation(ctx) {
    return publicAttempt(ctx, ctx.params.token, async () => {
      const invitation = await pendingInvitation(ctx, ctx.params.token);
      const { user, organization } = await acceptInvitation(ctx.deps, ctx.log, invitation, ctx.body);
      return ok({
        success: true,
        message: `Welcome to ${organization.name}: sign in with your e-mail address and your new password.`,
        user: { id: user.id, email: user.email, first_name: user.first_name, last_name: user.last_name },
        organization: { id: organization.id, slug: organization.slug, name: organization.name },
      });
    });
  },
} satisfies TypedOperations<typeof invitationRoutes>;
