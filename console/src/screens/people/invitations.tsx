import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Failure } from '../../kit/parts';
import { permissionLabel } from '../../kit/permissions';
import { errorText } from '../../queries/client';
import { organizationCalls } from '../../queries/people';
import { InviteForm } from './invite-form';
import type { Invitation } from './model';

/** Inviting someone, then the invitations still waiting, each with Resend and Cancel. */
export function Invitations({ org }: { org: string }) {
  const calls = organizationCalls(org);
  const queries = useQueryClient();
  const invitations = useQuery({ queryKey: ['invitations', org], queryFn: calls.pendingInvitations });
  const [notice, setNotice] = useState('');
  const refresh = () => queries.invalidateQueries({ queryKey: ['invitations', org] });

  async function act(invitation: Invitation, action: 'resend' | 'cancel') {
    try {
      if (action === 'resend') await calls.resend(invitation.uuid);
      else await calls.cancel(invitation.uuid);
      setNotice(
        action === 'resend'
          ? `Invitation to ${invitation.invitee_identifier} sent again.`
          : `Invitation to ${invitation.invitee_identifier} cancelled.`,
      );
      await refresh();
    } catch (failure) {
      setNotice(errorText(failure).message);
    }
  }

  return (
    <>
      <section aria-labelledby="invite-title">
        <h2 id="invite-title">Invite someone</h2>
        <p aria-live="polite" className="status">
          {notice}
        </p>
        <InviteForm
          org={org}
          onSent={async (sent) => {
            setNotice(sent);
            await refresh();
          }}
        />
      </section>
      <section aria-labelledby="invitations-title">
        <h2 id="invitations-title">Pending invitations</h2>
        {invitations.error ? <Failure error={invitations.error} /> : null}
        {invitations.data && invitations.data.results.length === 0 && <p>No invitation is waiting.</p>}
        {invitations.data && invitations.data.results.length > 0 && (
          <Pending invitations={invitations.data.results} onAct={act} />
        )}
      </section>
    </>
  );
}

/** The pending invitations, each with Resend and Cancel. */
function Pending({
  invitations,
  onAct,
}: {
  invitations: Invitation[];
  onAct: (invitation: Invitation, action: 'resend' | 'cancel') => void;
}) {
  return (
    <div className="scroll">
      <table>
        <caption className="sr-only">Invitations of the organization</caption>
        <thead>
          <tr>
            <th scope="col">E-mail</th>
            <th scope="col">Sent</th>
            <th scope="col">Groups and sites</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {invitations.map((invitation) => (
            <tr key={invitation.uuid}>
              <th scope="row">{invitation.invitee_identifier}</th>
              <td>{new Date(invitation.created).toLocaleString()}</td>
              <td>
                {[
                  ...invitation.config.group,
                  ...invitation.config.site.map(
                    (site) => `${site.slug}: ${site.permissions.map(permissionLabel).join(', ')}`,
                  ),
                ].join('; ')}
              </td>
              <td className="actions">
                <button
                  type="button"
                  onClick={() => onAct(invitation, 'resend')}
                  aria-label={`Resend the invitation to ${invitation.invitee_identifier}`}
                >
                  Resend
                </button>
                <button
                  type="button"
                  className="danger"
                  onClick={() => onAct(invitation, 'cancel')}
                  aria-label={`Cancel the invitation to ${invitation.invitee_identifier}`}
                >
                  Cancel
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
