import { Fragment, useState } from 'react';
import type { useAction } from '../kit/parts';
import { Failure } from '../kit/parts';
import { type User, type useUserActions, useUserOrganizations } from '../queries/users';

/** One account of the Users screen: who it is, its status, and what a superuser may do with it. */
export function UserRow({
  user,
  actions,
  action,
}: {
  user: User;
  actions: ReturnType<typeof useUserActions>;
  action: ReturnType<typeof useAction>;
}) {
  const [showOrgs, setShowOrgs] = useState(false);
  const name = `${user.first_name} ${user.last_name}`.trim();
  return (
    <Fragment>
      <tr>
        <th scope="row">{user.username}</th>
        <td>{user.email}</td>
        <td>{name}</td>
        <td>
          {user.is_active ? 'Active' : 'Deactivated'}
          {user.is_superuser ? ', superuser' : ''}
        </td>
        <td className="actions">
          <button type="button" aria-expanded={showOrgs} onClick={() => setShowOrgs(!showOrgs)}>
            Organizations<span className="sr-only"> of {user.username}</span>
          </button>
          <button
            type="button"
            disabled={action.busy || !user.is_active}
            onClick={() => action.run(() => actions.sendReset(user.id))}
          >
            Send reset link<span className="sr-only"> to {user.username}</span>
          </button>
          <button
            type="button"
            className={user.is_active ? 'danger' : undefined}
            disabled={action.busy}
            onClick={() => action.run(() => actions.setActive(user, !user.is_active))}
          >
            {user.is_active ? 'Deactivate' : 'Activate'}
            <span className="sr-only"> {user.username}</span>
          </button>
        </td>
      </tr>
      {showOrgs && (
        <tr>
          <td colSpan={5}>
            <Organizations userId={user.id} username={user.username} />
          </td>
        </tr>
      )}
    </Fragment>
  );
}

function Organizations({ userId, username }: { userId: number; username: string }) {
  const organizations = useUserOrganizations(userId);
  if (organizations.isLoading) return <p>Loading…</p>;
  if (organizations.error) return <Failure error={organizations.error} />;
  const list = organizations.data?.results ?? [];
  if (list.length === 0) return <p>{username} belongs to no organization.</p>;
  return (
    <ul aria-label={`Organizations of ${username}`}>
      {list.map((organization) => (
        <li key={organization.slug}>
          <a href={`#/o/${encodeURIComponent(organization.slug)}`}>{organization.name}</a> (
          {organization.role})
        </li>
      ))}
    </ul>
  );
}
