import { getUser } from '../../shared/accounts/users';
import { ok } from '../../shared/api/result';
import { NotFoundError } from '../../shared/errors';
import type { RequestContext } from '../../shared/http/context';
import { goneReason } from '../../shared/invitations/acceptance';
import type { StoredInvitation } from '../../shared/invitations/model';
import { invitationOfToken } from '../../shared/invitations/repository';
import { publicInvitationView } from '../../shared/invitations/views';
import { publicAttempt } from './limits';

/**
 * The invitation group's read of a public token, in a module of its own: the hosted pages (pages/api.ts) run it
 * without bundling the rest of the group (acceptance, creation, mail).
 */

type Ctx = RequestContext<unknown, unknown, unknown>;

/**
 * The pending invitation of a public token (the secret of the e-mail, never the uuid); 404 for unknown, replaced
 * and malformed tokens alike, 410 once used or expired.
 */
export async function pendingInvitation(ctx: Ctx, token: string): Promise<StoredInvitation> {
  const invitation = await invitationOfToken(ctx.deps.store, token);
  if (!invitation) throw new NotFoundError();
  const gone = goneReason(ctx.deps, invitation);
  if (gone) throw gone;
  return invitation;
}

export const invitationReadOperations = {
  async getInvitationDetails(ctx: RequestContext<unknown, unknown, { token: string }>) {
    return publicAttempt(ctx, ctx.params.token, async () => {
      const invitation = await pendingInvitation(ctx, ctx.params.token);
      const [invitee, inviter] = await Promise.all([
        getUser(ctx.deps.store, invitation.invitee),
        getUser(ctx.deps.store, invitation.invited_by),
      ]);
      return ok(publicInvitationView(invitation, invitee, inviter));
    });
  },
};
