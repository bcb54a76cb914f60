import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { CheckList, SelectField, TextField } from '../../kit/fields';
import { Failure, toggle } from '../../kit/parts';
import { answerOf, clientFor, errorText } from '../../queries/client';
import { organizationCalls, type SitePermission } from '../../queries/people';
import { type Invitation, sitePermissions, useSites } from './model';

export function Invitations({ org }: { org: string }) {
  const calls = organizationCalls(org);
  const queries = useQueryClient();
  const invitations = useQuery({ queryKey: ['invitations', org], queryFn: calls.pendingInvitations });
  const [email, setEmail] = useState('');
  const [groups, setGroups] = useState<string[]>([]);
  // One row per site: its slug and the permissions the invitee gets on it.
  const [grants, setGrants] = useState<{ site: string; permissions: SitePermission[] }[]>([
    { site: '', permissions: [] },
  ]);
  const sites = useSites(org);
  const setGrant = (index: number, change: Partial<{ site: string; permissions: SitePermission[] }>) =>
    setGrants((current) => current.map((grant, at) => (at === index ? { ...grant, ...change } : grant)));
  const groupList = useQuery({
    queryKey: ['groups', org],
    queryFn: () =>
      answerOf(
        clientFor().GET('/api/cloud/organizations/{org_slug}/groups/', {
          params: { path: { org_slug: org }, query: { page_size: 100 } },
        }),
      ),
  });
  const [error, setError] = useState<{ message: string; fields: Record<string, string[]> } | null>(null);
  const [notice, setNotice] = useState('');
  const [busy, setBusy] = useState(false);
  const refresh = () => queries.invalidateQueries({ queryKey: ['invitations', org] });

  async function invite(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const config: { group?: string[]; site?: { slug: string; permissions: SitePermission[] }[] } = {};
      if (groups.length) config.group = groups;
      const chosen = grants
        .filter((grant) => grant.site && grant.permissions.length)
        .map((grant) => ({ slug: grant.site, permissions: grant.permissions }));
      if (chosen.length) config.site = chosen;
      await calls.invite({
        invitee_identifier: email.trim(),
        ...(Object.keys(config).length ? { invitation_config: config } : {}),
      });
      setNotice(`Invitation sent to ${email.trim()}.`);
      setEmail('');
      setGroups([]);
      setGrants([{ site: '', permissions: [] }]);
      await refresh();
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  }

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
    <section aria-labelledby="invitations-title">
      <h2 id="invitations-title">Pending invitations</h2>
      <p aria-live="polite" className="status">
        {notice}
      </p>
      <form className="card" onSubmit={invite} noValidate aria-label="Invite someone">
        {error && !error.fields.invitee_identifier && (
          <div role="alert" className="error">
            {error.message}
          </div>
        )}
        <TextField
          label="E-mail address"
          value={email}
          onChange={setEmail}
          inputType="email"
          required
          error={error?.fields.invitee_identifier?.join(' ')}
        />
        {groupList.data && groupList.data.results.length > 0 && (
          <CheckList
            legend="Groups to join"
            items={groupList.data.results.map((group) => [group.slug, group.name] as const)}
            chosen={groups}
            onChange={setGroups}
          />
        )}
        {grants.map((grant, index) => (
          <SiteGrant
            key={`grant-${index + 1}`}
            index={index}
            grant={grant}
            sites={(sites.data?.results ?? []).filter(
              (item) => item.slug === grant.site || !grants.some((other) => other.site === item.slug),
            )}
            error={index === 0 ? error?.fields['invitation_config.site']?.join(' ') : undefined}
            onChange={(change) => setGrant(index, change)}
          />
        ))}
        {(sites.data?.results.length ?? 0) > grants.length && grants.every((grant) => grant.site) && (
          <button
            type="button"
            onClick={() => setGrants((current) => [...current, { site: '', permissions: [] }])}
          >
            Add another site
          </button>
        )}
        <button type="submit" className="primary" disabled={busy}>
          Invite
        </button>
      </form>
      {invitations.error ? <Failure error={invitations.error} /> : null}
      {invitations.data && invitations.data.results.length === 0 && <p>No invitation is waiting.</p>}
      {invitations.data && invitations.data.results.length > 0 && (
        <Pending invitations={invitations.data.results} onAct={act} />
      )}
    </section>
  );
}

type Grant = { site: string; permissions: SitePermission[] };

/** One site of an invitation and the permissions the invitee gets on it. */
function SiteGrant({
  index,
  grant,
  sites,
  error,
  onChange,
}: {
  index: number;
  grant: Grant;
  sites: { slug: string; name: string }[];
  error: string | undefined;
  onChange: (change: Partial<Grant>) => void;
}) {
  return (
    <fieldset>
      <legend>{index === 0 ? 'Site permissions' : `Site permissions ${index + 1}`}</legend>
      <SelectField
        label={index === 0 ? 'Site' : `Site ${index + 1}`}
        value={grant.site}
        options={[['', '(no site)'], ...sites.map((item): [string, string] => [item.slug, item.name])]}
        onChange={(value) => onChange({ site: value })}
        error={error}
      />
      {grant.site &&
        sitePermissions.map((permission) => (
          <label className="check" key={permission}>
            <input
              type="checkbox"
              aria-label={index === 0 ? permission : `${permission} on site ${index + 1}`}
              checked={grant.permissions.includes(permission)}
              onChange={(event) =>
                onChange({ permissions: toggle(grant.permissions, permission, event.target.checked) })
              }
            />{' '}
            {permission}
          </label>
        ))}
    </fieldset>
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
                  ...invitation.config.site.map((site) => `${site.slug}: ${site.permissions.join(', ')}`),
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
