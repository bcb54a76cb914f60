import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { SelectField, TextField } from '../../kit/fields';
import { ConfirmButton, Failure, FormError, Notice, useAction } from '../../kit/parts';
import type { Member } from '../../queries/organizations';
import { organizationCalls } from '../../queries/people';
import type { Group, GroupMember } from './model';

/** The organization's groups: each with its members; create, rename, delete, add and remove (admins). */
export function Groups({ org, admin, members }: { org: string; admin: boolean; members: Member[] }) {
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

export function GroupCard({
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
