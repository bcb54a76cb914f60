import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { SelectField, TextField } from '../../kit/fields';
import { Failure, FormError, Notice, useAction } from '../../kit/parts';
import { answerOf, clientFor } from '../../queries/client';
import { useMembers } from '../../queries/organizations';
import { expiry, type Holder } from './model';

/** Who holds one role: active holders, and expired ones marked; assign with an expiry date, revoke. */
export function Holders({
  site,
  org,
  roles,
  manage,
}: {
  site: string;
  org: string;
  roles: [string, string][];
  manage: boolean;
}) {
  const queries = useQueryClient();
  const members = useMembers(org);
  const [picked, setPicked] = useState('');
  const role = picked || roles[0]?.[0] || '';
  const holders = useQuery({
    queryKey: ['holders', site, role],
    enabled: Boolean(role),
    queryFn: async () => {
      const all = await answerOf(
        clientFor(site).GET('/api/roles/{role_slug}/users', {
          params: {
            path: { role_slug: role },
            query: {
              ordering: 'expires_at',
              include_expired: true,
            },
          },
        }),
      );
      const now = Date.now();
      return all.data.map((holder) => ({
        ...holder,
        expired: holder.expires_at !== null && Date.parse(holder.expires_at) <= now,
      }));
    },
  });
  const action = useAction();
  const [person, setPerson] = useState('');
  const [until, setUntil] = useState('');
  const people = (members.data?.results ?? []).map((member) => member.user.username);
  const who = person || people[0] || '';
  const refresh = () => queries.invalidateQueries({ queryKey: ['holders', site] });

  async function assign(event: FormEvent) {
    event.preventDefault();
    const done = await action.run(async () => {
      await answerOf(
        clientFor(site).POST('/api/users/{username}/roles', {
          params: { path: { username: who } },
          body: { role_slugs: [role], expires_at: expiry(until) },
        }),
      );
      await refresh();
      return until
        ? `${who} holds ${role} until ${new Date(until).toLocaleString()}.`
        : `${who} holds ${role} with no expiry.`;
    });
    if (done) setUntil('');
  }
  const [changing, setChanging] = useState('');
  const [newUntil, setNewUntil] = useState('');
  const change = useAction();
  async function changeExpiry(event: FormEvent) {
    event.preventDefault();
    const done = await change.run(async () => {
      await answerOf(
        clientFor(site).PATCH('/api/roles/{role_slug}/users', {
          params: { path: { role_slug: role } },
          body: { usernames: [changing], expires_at: expiry(newUntil) },
        }),
      );
      await refresh();
      return `The membership of ${changing} in ${role} now ${newUntil ? `ends ${new Date(newUntil).toLocaleString()}` : 'never ends'}.`;
    });
    if (done) setChanging('');
  }
  async function revoke(username: string) {
    await action.run(async () => {
      await answerOf(
        clientFor(site).DELETE('/api/roles/{role_slug}/users', {
          params: { path: { role_slug: role } },
          body: { usernames: [username] },
        }),
      );
      await refresh();
      return `${username} no longer holds ${role}.`;
    });
  }
  if (roles.length === 0) return null;
  return (
    <section aria-labelledby="holders-title">
      <h2 id="holders-title">Memberships</h2>
      <SelectField label="Role" value={role} options={roles} onChange={setPicked} />
      <Notice text={action.notice || change.notice} />
      {holders.error ? <Failure error={holders.error} /> : null}
      {holders.data && holders.data.length === 0 && <p>Nobody holds this role.</p>}
      {holders.data && holders.data.length > 0 && (
        <HoldersTable
          role={role}
          holders={holders.data}
          manage={manage}
          onChangeExpiry={(username) => {
            setChanging(username);
            setNewUntil('');
          }}
          onRevoke={revoke}
        />
      )}
      {manage && changing && (
        <form
          className="card inline"
          onSubmit={changeExpiry}
          noValidate
          aria-label={`Change expiry of ${changing}`}
        >
          <FormError error={change.error} shown={['expires_at']} />
          <TextField
            label={`New expiry of ${changing} (empty: never)`}
            value={newUntil}
            onChange={setNewUntil}
            inputType="datetime-local"
            error={change.at('expires_at')}
          />
          <button type="submit" className="primary" disabled={change.busy}>
            Save expiry
          </button>
          <button type="button" onClick={() => setChanging('')}>
            Cancel
          </button>
        </form>
      )}
      {manage && (
        <form className="card inline" onSubmit={assign} noValidate aria-label="Assign the role">
          <FormError error={action.error} shown={['expires_at']} />
          <SelectField
            label="Person"
            value={who}
            options={people.map((name): [string, string] => [name, name])}
            onChange={setPerson}
          />
          <TextField
            label="Expires (optional)"
            value={until}
            onChange={setUntil}
            inputType="datetime-local"
            error={action.at('expires_at')}
          />
          <button type="submit" className="primary" disabled={action.busy || !who}>
            Assign
          </button>
        </form>
      )}
    </section>
  );
}

/** Who holds the role, active or expired, with the expiry; "Change expiry" and "Revoke" for who manages users. */
function HoldersTable({
  role,
  holders,
  manage,
  onChangeExpiry,
  onRevoke,
}: {
  role: string;
  holders: Holder[];
  manage: boolean;
  onChangeExpiry: (username: string) => void;
  onRevoke: (username: string) => void;
}) {
  return (
    <div className="scroll">
      <table>
        <caption className="sr-only">Holders of {role}</caption>
        <thead>
          <tr>
            <th scope="col">Username</th>
            <th scope="col">Name</th>
            <th scope="col">State</th>
            {manage && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>
          {holders.map((holder) => (
            <tr key={holder.username}>
              <th scope="row">{holder.username}</th>
              <td>{`${holder.first_name} ${holder.last_name}`.trim()}</td>
              <td>
                {holder.expired ? 'expired' : 'active'}
                {holder.expires_at
                  ? `${holder.expired ? ' since' : ', until'} ${new Date(holder.expires_at).toLocaleString()}`
                  : ', no expiry'}
              </td>
              {manage && (
                <td className="actions">
                  <button
                    type="button"
                    onClick={() => onChangeExpiry(holder.username)}
                    aria-label={`Change expiry of ${holder.username}`}
                  >
                    Change expiry
                  </button>
                  <button
                    type="button"
                    className="danger"
                    onClick={() => onRevoke(holder.username)}
                    aria-label={`Revoke ${role} from ${holder.username}`}
                  >
                    Revoke
                  </button>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
