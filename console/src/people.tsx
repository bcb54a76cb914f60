import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { errorText, get, send } from './api';
import { SelectField, TextField } from './data';

const sitePermissions = [
  'access_site',
  'view_site',
  'change_site',
  'delete_site',
  'manage_site',
  'manage_site_users',
  'admin_site',
];

import { type Abilities, Failure, useMembers } from './shell';

/** An organization's people: its members and roles, and its invitations (owners and admins only). */

interface Invitation {
  uuid: string;
  invitee_identifier: string;
  created: string;
  config: { group: string[]; site: { slug: string; permissions: string[] }[] };
  status?: string;
  accepted?: boolean;
  [key: string]: unknown;
}

export function PeopleScreen({
  org,
  abilities,
  meId,
}: {
  org: string;
  abilities?: Abilities;
  meId?: number;
}) {
  const members = useMembers(org);
  return (
    <>
      <h1>People</h1>
      <section aria-labelledby="members-title">
        <h2 id="members-title">Members</h2>
        {members.isLoading && <p>Loading…</p>}
        {members.error ? <Failure error={members.error} /> : null}
        {members.data && (
          <div className="scroll">
            <table>
              <caption className="sr-only">Members of the organization</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Username</th>
                  <th scope="col">Role</th>
                  <th scope="col">Groups</th>
                </tr>
              </thead>
              <tbody>
                {members.data.results.map((member) => (
                  <tr key={member.user_id}>
                    <th scope="row">
                      {`${member.user.first_name} ${member.user.last_name}`.trim() || member.user.username}
                      {member.user_id === meId ? ' (you)' : ''}
                    </th>
                    <td>{member.user.username}</td>
                    <td>{member.role}</td>
                    <td>{member.groups.map((group) => group.name).join(', ')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      {abilities?.orgAdmin ? (
        <Invitations org={org} />
      ) : (
        <p className="muted">Invitations are managed by the organization's owner and admins.</p>
      )}
    </>
  );
}

function Invitations({ org }: { org: string }) {
  const base = `/api/cloud/organizations/${encodeURIComponent(org)}/invitations/`;
  const queries = useQueryClient();
  const invitations = useQuery({
    queryKey: ['invitations', org],
    // Pending ones only: accepted invitations cannot be resent or cancelled.
    queryFn: () =>
      get<{ results: Invitation[] }>(base, undefined, { page_size: '100', invitee__is_active: 'false' }),
  });
  const [email, setEmail] = useState('');
  const [groups, setGroups] = useState<string[]>([]);
  const [site, setSite] = useState('');
  const [permissions, setPermissions] = useState<string[]>([]);
  const sites = useQuery({
    queryKey: ['sites', org],
    queryFn: () =>
      get<{ results: { slug: string; name: string }[] }>(
        `/api/cloud/organizations/${encodeURIComponent(org)}/sites/`,
        undefined,
        { page_size: '100' },
      ),
  });
  const groupList = useQuery({
    queryKey: ['groups', org],
    queryFn: () =>
      get<{ results: { slug: string; name: string }[] }>(
        `/api/cloud/organizations/${encodeURIComponent(org)}/groups/`,
        undefined,
        { page_size: '100' },
      ),
  });
  const toggle = (list: string[], value: string, on: boolean) =>
    on ? [...list.filter((item) => item !== value), value] : list.filter((item) => item !== value);
  const [error, setError] = useState<{ message: string; fields: Record<string, string[]> } | null>(null);
  const [notice, setNotice] = useState('');
  const [busy, setBusy] = useState(false);
  const refresh = () => queries.invalidateQueries({ queryKey: ['invitations', org] });

  async function invite(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const config: { group?: string[]; site?: { slug: string; permissions: string[] }[] } = {};
      if (groups.length) config.group = groups;
      if (site && permissions.length) config.site = [{ slug: site, permissions }];
      await send('POST', base, {
        invitee_identifier: email.trim(),
        ...(Object.keys(config).length ? { invitation_config: config } : {}),
      });
      setNotice(`Invitation sent to ${email.trim()}.`);
      setEmail('');
      setGroups([]);
      setSite('');
      setPermissions([]);
      await refresh();
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  }

  async function act(invitation: Invitation, action: 'resend' | 'cancel') {
    try {
      if (action === 'resend')
        await send('POST', `${base}${encodeURIComponent(invitation.uuid)}/resend/`, {});
      else await send('DELETE', `${base}${encodeURIComponent(invitation.uuid)}/`);
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
          <fieldset>
            <legend>Groups to join</legend>
            {groupList.data.results.map((group) => (
              <label className="check" key={group.slug}>
                <input
                  type="checkbox"
                  checked={groups.includes(group.slug)}
                  onChange={(event) =>
                    setGroups((current) => toggle(current, group.slug, event.target.checked))
                  }
                />{' '}
                {group.name}
              </label>
            ))}
          </fieldset>
        )}
        <fieldset>
          <legend>Site permissions</legend>
          <SelectField
            label="Site"
            value={site}
            options={[
              ['', '(no site)'],
              ...(sites.data?.results ?? []).map((item): [string, string] => [item.slug, item.name]),
            ]}
            onChange={setSite}
            error={error?.fields['invitation_config.site']?.join(' ')}
          />
          {site &&
            sitePermissions.map((permission) => (
              <label className="check" key={permission}>
                <input
                  type="checkbox"
                  checked={permissions.includes(permission)}
                  onChange={(event) =>
                    setPermissions((current) => toggle(current, permission, event.target.checked))
                  }
                />{' '}
                {permission}
              </label>
            ))}
        </fieldset>
        <button type="submit" className="primary" disabled={busy}>
          Invite
        </button>
      </form>
      {invitations.error ? <Failure error={invitations.error} /> : null}
      {invitations.data && invitations.data.results.length === 0 && <p>No invitation is waiting.</p>}
      {invitations.data && invitations.data.results.length > 0 && (
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
              {invitations.data.results.map((invitation) => (
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
                      onClick={() => act(invitation, 'resend')}
                      aria-label={`Resend the invitation to ${invitation.invitee_identifier}`}
                    >
                      Resend
                    </button>
                    <button
                      type="button"
                      className="danger"
                      onClick={() => act(invitation, 'cancel')}
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
      )}
    </section>
  );
}
