import { useState } from 'react';
import { TextField } from '../kit/fields';
import { Failure, FormError, Notice, useAction } from '../kit/parts';
import { usersPageSize, useUserActions, useUsers } from '../queries/users';
import { CreateUser } from './users-create';
import { UserRow } from './users-row';

/**
 * The platform's accounts, for superusers (docs/console.md, "Users"): search by username or e-mail address,
 * create an account (its person chooses the password by a link), deactivate or activate one, send a reset link,
 * and see an account's organizations. The API refuses anyone else (403), whatever this screen shows.
 */
export function UsersScreen() {
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  const users = useUsers(search.trim(), page);
  const actions = useUserActions();
  const action = useAction();
  const pages = Math.max(1, Math.ceil((users.data?.count ?? 0) / usersPageSize));
  return (
    <>
      <h1>Users</h1>
      <search className="toolbar">
        <TextField
          label="Search users"
          hint="A part of the username or the e-mail address"
          inputType="search"
          value={search}
          onChange={(value) => {
            setSearch(value);
            setPage(1);
          }}
        />
      </search>
      <Notice text={action.notice} />
      <FormError error={action.error} />
      {users.isLoading && <p>Loading…</p>}
      {users.error ? <Failure error={users.error} /> : null}
      {users.data && (
        <div className="scroll">
          <table>
            <caption>
              {users.data.count} user{users.data.count === 1 ? '' : 's'}
              {search.trim() ? ` matching “${search.trim()}”` : ''}
            </caption>
            <thead>
              <tr>
                <th scope="col">Username</th>
                <th scope="col">E-mail</th>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {users.data.results.map((user) => (
                <UserRow key={user.id} user={user} actions={actions} action={action} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {pages > 1 && (
        <nav className="pager" aria-label="Pages of users">
          <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            Previous
          </button>
          <span>
            Page {page} of {pages}
          </span>
          <button type="button" disabled={page >= pages} onClick={() => setPage(page + 1)}>
            Next
          </button>
        </nav>
      )}
      <CreateUser create={actions.create} />
    </>
  );
}
