import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { SelectField, TextField } from '../kit/fields';
import { ConfirmButton, Failure, FormError, Notice, toggle, useAction } from '../kit/parts';
import { answerOf, clientFor, errorText } from '../queries/client';
import { type Abilities, type Member, useMembers } from '../queries/organizations';
import { organizationCalls, type SitePermission } from '../queries/people';

const sitePermissions: SitePermission[] = [
  'access_site',
  'view_site',
  'change_site',
  'delete_site',
  'manage_site',
  'manage_site_users',
  'admin_site',
];

/**
 * An organization's people: its members and their roles, its groups and their members, the members' permissions
 * on each site, and its invitations (changes for owners and admins only).
 */

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
  const queries = useQueryClient();
  const roleChange = useAction();
  async function changeRole(member: Member, role: Member['role']) {
    await roleChange.run(async () => {
      await answerOf(
        clientFor().POST('/api/cloud/organizations/{org_slug}/members/', {
          params: { path: { org_slug: org } },
          body: {
            user_id: member.user_id,
            role,
          },
        }),
      );
      await queries.invalidateQueries({ queryKey: ['members', org] });
      return `${member.user.username} is now ${role === 'admin' ? 'an admin' : 'a member'}.`;
    });
  }
  return (
    <>
      <h1>People</h1>
      <section aria-labelledby="members-title">
        <h2 id="members-title">Members</h2>
        {members.isLoading && <p>Loading…</p>}
        {members.error ? <Failure error={members.error} /> : null}
        <Notice text={roleChange.notice} />
        <FormError error={roleChange.error} />
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
                    <td>
                      {abilities?.orgAdmin && member.role !== 'owner' ? (
                        <select
                          aria-label={`Role of ${member.user.username}`}
                          value={member.role}
                          disabled={roleChange.busy}
                          onChange={(event) =>
                            changeRole(member, event.target.value === 'admin' ? 'admin' : 'member')
                          }
                        >
                          <option value="admin">admin</option>
                          <option value="member">member</option>
                        </select>
                      ) : (
                        member.role
                      )}
                    </td>
                    <td>{member.groups.map((group) => group.name).join(', ')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      {abilities?.superuser && <AddMember org={org} />}
      <Groups org={org} admin={abilities?.orgAdmin ?? false} members={members.data?.results ?? []} />
      {abilities?.orgAdmin && <SitePermissions org={org} members={members.data?.results ?? []} />}
      {abilities?.orgAdmin ? (
        <Invitations org={org} />
      ) : (
        <p className="muted">
          Invitations, groups and site permissions are managed by the organization's owner and admins.
        </p>
      )}
    </>
  );
}

/**
 * A superuser adds a person to the organization (the API's rule: owners and admins bring people in through
 * invitations): a new account (e-mail, username, password, names) or an existing one by username or e-mail.
 */
function AddMember({ org }: { org: string }) {
  const queries = useQueryClient();
  const action = useAction();
  const [kind, setKind] = useState('new');
  const [fields, setFields] = useState<Record<string, string>>({ role: 'member' });
  const field = (name: string) => ({
    value: fields[name] ?? '',
    onChange: (value: string) => setFields((current) => ({ ...current, [name]: value })),
  });
  async function add(event: FormEvent) {
    event.preventDefault();
    const { who = '', role, ...rest } = fields;
    const body: Record<string, string> = { role: role ?? 'member' };
    if (kind === 'new') {
      for (const [name, value] of Object.entries(rest)) if (value.trim()) body[name] = value.trim();
      body.password = rest.password ?? '';
    } else body[who.includes('@') ? 'email' : 'username'] = who.trim();
    const ok = await action.run(async () => {
      const added = await answerOf(
        clientFor().POST('/api/cloud/organizations/{org_slug}/members/', {
          params: { path: { org_slug: org } },
          body: body,
        }),
      );
      await queries.invalidateQueries({ queryKey: ['members', org] });
      return `${added.user.username} (user ${added.user.id}) is now ${body.role === 'admin' ? 'an admin' : 'a member'}.`;
    });
    if (ok) setFields({ role: body.role ?? 'member' });
  }
  const shown =
    kind === 'new'
      ? ['email', 'username', 'password', 'first_name', 'last_name', 'role']
      : ['user', 'username', 'email', 'role'];
  return (
    <section aria-labelledby="add-member-title">
      <h2 id="add-member-title">Add a member</h2>
      <Notice text={action.notice} />
      <form className="card" onSubmit={add} noValidate aria-labelledby="add-member-title">
        <FormError error={action.error} shown={shown} />
        <SelectField
          label="Account"
          value={kind}
          options={[
            ['new', 'a new account'],
            ['existing', 'an existing account'],
          ]}
          onChange={setKind}
        />
        {kind === 'new' ? (
          <>
            <TextField
              label="Member's e-mail"
              inputType="email"
              required
              {...field('email')}
              error={action.at('email')}
            />
            <TextField label="Member's username" {...field('username')} error={action.at('username')} />
            <TextField
              label="Member's password"
              inputType="password"
              required
              hint="10 characters or more, not easy to guess."
              {...field('password')}
              error={action.at('password')}
            />
            <TextField label="First name" {...field('first_name')} error={action.at('first_name')} />
            <TextField label="Last name" {...field('last_name')} error={action.at('last_name')} />
          </>
        ) : (
          <TextField
            label="Username or e-mail"
            required
            {...field('who')}
            error={action.at('user', 'username', 'email')}
          />
        )}
        <SelectField
          label="Organization role"
          value={fields.role ?? 'member'}
          options={[
            ['member', 'member'],
            ['admin', 'admin'],
          ]}
          onChange={field('role').onChange}
          error={action.at('role')}
        />
        <button type="submit" className="primary" disabled={action.busy}>
          Add member
        </button>
      </form>
    </section>
  );
}

interface Group {
  slug: string;
  name: string;
}
interface GroupMember {
  user_id: number;
  user: { username: string; first_name: string; last_name: string };
}

function useSites(org: string) {
  return useQuery({
    queryKey: ['sites', org],
    queryFn: () =>
      answerOf(
        clientFor().GET('/api/cloud/organizations/{org_slug}/sites/', {
          params: { path: { org_slug: org }, query: { page_size: 100 } },
        }),
      ),
  });
}

/** The organization's groups: each with its members; create, rename, delete, add and remove (admins). */
function Groups({ org, admin, members }: { org: string; admin: boolean; members: Member[] }) {
  const calls = organizationCalls(org);
  const queries = useQueryClient();
  const groups = useQuery({ queryKey: ['groups', org], queryFn: calls.groups });
  const action = useAction();
  const [name, setName] = useState('');
  async function create(event: FormEvent) {
    event.preventDefault();
    const ok = await action.run(async () => {
      await calls.createGroup(name.trim());
      await queries.invalidateQueries({ queryKey: ['groups', org] });
      return `Group ${name.trim()} created.`;
    });
    if (ok) setName('');
  }
  const list = groups.data?.results ?? [];
  return (
    <section aria-labelledby="groups-title">
      <h2 id="groups-title">Groups</h2>
      <Notice text={action.notice} />
      {groups.error ? <Failure error={groups.error} /> : null}
      {groups.data && list.length === 0 && <p>This organization has no group yet.</p>}
      {list.map((group) => (
        <GroupCard key={group.slug} org={org} group={group} admin={admin} members={members} />
      ))}
      {admin && (
        <form className="card inline" onSubmit={create} noValidate aria-label="Create a group">
          <FormError error={action.error} shown={['name', 'slug']} />
          <TextField
            label="New group's name"
            value={name}
            onChange={setName}
            required
            error={action.at('name', 'slug')}
          />
          <button type="submit" className="primary" disabled={action.busy}>
            Create group
          </button>
        </form>
      )}
    </section>
  );
}

function GroupCard({
  org,
  group,
  admin,
  members,
}: {
  org: string;
  group: Group;
  admin: boolean;
  members: Member[];
}) {
  const calls = organizationCalls(org).group(group.slug);
  const queries = useQueryClient();
  const inGroup = useQuery({ queryKey: ['group-members', org, group.slug], queryFn: calls.members });
  const action = useAction();
  const [renaming, setRenaming] = useState(false);
  const [newName, setNewName] = useState(group.name);
  const [adding, setAdding] = useState('');
  const current = inGroup.data?.results ?? [];
  const others = members.filter((member) => !current.some((item) => item.user_id === member.user_id));
  const chosen = adding || String(others[0]?.user_id ?? '');
  const refresh = async () => {
    await queries.invalidateQueries({ queryKey: ['group-members', org, group.slug] });
    await queries.invalidateQueries({ queryKey: ['members', org] });
  };
  async function rename(event: FormEvent) {
    event.preventDefault();
    const ok = await action.run(async () => {
      await calls.rename(newName.trim());
      await queries.invalidateQueries({ queryKey: ['groups', org] });
      await queries.invalidateQueries({ queryKey: ['members', org] });
      return `Group renamed to ${newName.trim()}.`;
    });
    if (ok) setRenaming(false);
  }
  async function remove() {
    await action.run(async () => {
      await calls.remove();
      await queries.invalidateQueries({ queryKey: ['groups', org] });
      await queries.invalidateQueries({ queryKey: ['members', org] });
      return undefined;
    });
  }
  async function add(event: FormEvent) {
    event.preventDefault();
    const member = members.find((item) => String(item.user_id) === chosen);
    await action.run(async () => {
      await calls.add(Number(chosen));
      await refresh();
      return `${member?.user.username ?? chosen} added to ${group.name}.`;
    });
  }
  async function takeOut(item: GroupMember) {
    await action.run(async () => {
      await calls.takeOut(item.user_id);
      await refresh();
      return `${item.user.username} removed from ${group.name}.`;
    });
  }
  const titleId = `group-${group.slug}`;
  return (
    <section className="card" aria-labelledby={titleId}>
      <h3 id={titleId}>{group.name}</h3>
      <Notice text={action.notice} />
      <FormError error={action.error} shown={renaming ? ['name'] : []} />
      {current.length === 0 ? (
        <p>No member in this group.</p>
      ) : (
        <ul className="chips" aria-label={`Members of ${group.name}`}>
          {current.map((item) => (
            <li key={item.user_id}>
              {item.user.username}
              {admin && (
                <button
                  type="button"
                  onClick={() => takeOut(item)}
                  aria-label={`Remove ${item.user.username} from ${group.name}`}
                >
                  ×
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {admin && (
        <div className="toolbar">
          {others.length > 0 && (
            <form
              className="inline-form"
              onSubmit={add}
              noValidate
              aria-label={`Add a member to ${group.name}`}
            >
              <SelectField
                label={`Add to ${group.name}`}
                value={chosen}
                options={others.map((member): [string, string] => [
                  String(member.user_id),
                  member.user.username,
                ])}
                onChange={setAdding}
              />
              <button type="submit" disabled={action.busy}>
                Add
              </button>
            </form>
          )}
          {renaming ? (
            <form className="inline-form" onSubmit={rename} noValidate aria-label={`Rename ${group.name}`}>
              <TextField label="New name" value={newName} onChange={setNewName} error={action.at('name')} />
              <button type="submit" className="primary" disabled={action.busy}>
                Save name
              </button>
            </form>
          ) : (
            <button type="button" onClick={() => setRenaming(true)} aria-label={`Rename ${group.name}`}>
              Rename
            </button>
          )}
          <ConfirmButton label="Delete" what={`group ${group.name}`} onConfirm={remove} />
        </div>
      )}
    </section>
  );
}

interface Grant {
  user_id: number;
  permissions: string[];
}

/** Each member's permissions on one site of the organization: granted and revoked by checkbox, saved per member. */
function SitePermissions({ org, members }: { org: string; members: Member[] }) {
  const sites = useSites(org);
  const [picked, setPicked] = useState('');
  const site = picked || sites.data?.results[0]?.slug || '';
  const calls = organizationCalls(org);
  const grants = useQuery({
    queryKey: ['site-permissions', org, site],
    enabled: Boolean(site),
    queryFn: () => calls.sitePermissions(site),
  });
  const queries = useQueryClient();
  const action = useAction();
  const [edits, setEdits] = useState<Record<number, SitePermission[]>>({});
  const held = (userId: number) =>
    edits[userId] ?? grants.data?.find((grant) => grant.user_id === userId)?.permissions ?? [];
  async function save(member: Member) {
    const permissions = held(member.user_id);
    await action.run(async () => {
      await calls.setSitePermissions(site, member.user_id, permissions);
      await queries.invalidateQueries({ queryKey: ['site-permissions', org, site] });
      await queries.invalidateQueries({ queryKey: ['own-site-permissions', site] });
      setEdits(({ [member.user_id]: _, ...rest }) => rest);
      return permissions.length
        ? `${member.user.username} now holds ${permissions.join(', ')} on ${site}.`
        : `${member.user.username} holds nothing on ${site} now.`;
    });
  }
  // Owners and admins hold everything on every site through their role: their rows need no grant.
  const people = members.filter((member) => member.role === 'member');
  return (
    <section aria-labelledby="site-permissions-title">
      <h2 id="site-permissions-title">Site permissions</h2>
      <p className="muted">
        Owners and admins may do everything on every site; members hold what is granted here.
      </p>
      {sites.data && sites.data.results.length === 0 && <p>This organization has no site yet.</p>}
      {sites.data && sites.data.results.length > 0 && (
        <SelectField
          label="Permissions on the site"
          value={site}
          options={sites.data.results.map((item): [string, string] => [item.slug, item.name])}
          onChange={setPicked}
        />
      )}
      <Notice text={action.notice} />
      <FormError error={action.error} />
      {grants.error ? <Failure error={grants.error} /> : null}
      {grants.data && people.length === 0 && <p>No plain member to grant permissions to.</p>}
      {grants.data && people.length > 0 && (
        <div className="scroll">
          <table>
            <caption className="sr-only">Permissions of the members on {site}</caption>
            <thead>
              <tr>
                <th scope="col">Member</th>
                <th scope="col">Permissions</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {people.map((member) => (
                <tr key={member.user_id}>
                  <th scope="row">{member.user.username}</th>
                  <td>
                    <fieldset className="perms">
                      <legend className="sr-only">Permissions of {member.user.username}</legend>
                      {sitePermissions.map((permission) => (
                        <label className="check" key={permission}>
                          <input
                            type="checkbox"
                            aria-label={`${permission} for ${member.user.username}`}
                            checked={held(member.user_id).includes(permission)}
                            onChange={(event) =>
                              setEdits((current) => ({
                                ...current,
                                [member.user_id]: toggle(
                                  held(member.user_id),
                                  permission,
                                  event.target.checked,
                                ),
                              }))
                            }
                          />{' '}
                          {permission}
                        </label>
                      ))}
                    </fieldset>
                  </td>
                  <td>
                    <button
                      type="button"
                      className="primary"
                      disabled={action.busy || edits[member.user_id] === undefined}
                      onClick={() => save(member)}
                      aria-label={`Save the permissions of ${member.user.username}`}
                    >
                      Save
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

function Invitations({ org }: { org: string }) {
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
        {grants.map((grant, index) => (
          <fieldset key={`grant-${index + 1}`}>
            <legend>{index === 0 ? 'Site permissions' : `Site permissions ${index + 1}`}</legend>
            <SelectField
              label={index === 0 ? 'Site' : `Site ${index + 1}`}
              value={grant.site}
              options={[
                ['', '(no site)'],
                ...(sites.data?.results ?? [])
                  .filter(
                    (item) => item.slug === grant.site || !grants.some((other) => other.site === item.slug),
                  )
                  .map((item): [string, string] => [item.slug, item.name]),
              ]}
              onChange={(value) => setGrant(index, { site: value })}
              error={index === 0 ? error?.fields['invitation_config.site']?.join(' ') : undefined}
            />
            {grant.site &&
              sitePermissions.map((permission) => (
                <label className="check" key={permission}>
                  <input
                    type="checkbox"
                    aria-label={index === 0 ? permission : `${permission} on site ${index + 1}`}
                    checked={grant.permissions.includes(permission)}
                    onChange={(event) =>
                      setGrant(index, {
                        permissions: toggle(grant.permissions, permission, event.target.checked),
                      })
                    }
                  />{' '}
                  {permission}
                </label>
              ))}
          </fieldset>
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
