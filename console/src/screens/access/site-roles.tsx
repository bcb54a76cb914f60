import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { CheckList, TextField } from '../../kit/fields';
import { ConfirmButton, Failure, FormError, Notice, useAction } from '../../kit/parts';
import { answerOf, clientFor } from '../../queries/client';
import type { AppRole, SiteRole } from './model';

export function SiteRoles({
  site,
  query,
  appRoles,
  configure,
}: {
  site: string;
  query: { data?: { data: SiteRole[] }; isLoading: boolean; error: unknown };
  appRoles: AppRole[];
  configure: boolean;
}) {
  const queries = useQueryClient();
  const action = useAction();
  const [name, setName] = useState('');
  const [bundle, setBundle] = useState<string[]>([]);
  const refresh = () => queries.invalidateQueries({ queryKey: ['site-roles', site] });
  async function create(event: FormEvent) {
    event.preventDefault();
    const done = await action.run(async () => {
      await answerOf(
        clientFor(site).POST('/api/roles/', { body: { name: name.trim(), role_slugs: bundle } }),
      );
      await refresh();
      return `Site role ${name.trim()} created.`;
    });
    if (done) {
      setName('');
      setBundle([]);
    }
  }
  const [editing, setEditing] = useState('');
  const [edited, setEdited] = useState<string[]>([]);
  async function save(event: FormEvent, role: SiteRole) {
    event.preventDefault();
    const done = await action.run(async () => {
      await answerOf(
        clientFor(site).PUT('/api/roles/{slug}', {
          params: { path: { slug: role.slug } },
          body: { role_slugs: edited },
        }),
      );
      await refresh();
      return `Site role ${role.name} now bundles ${edited.length ? edited.join(', ') : 'no app role'}.`;
    });
    if (done) setEditing('');
  }
  async function remove(role: SiteRole) {
    await action.run(async () => {
      await answerOf(clientFor(site).DELETE('/api/roles/{slug}', { params: { path: { slug: role.slug } } }));
      await refresh();
      return `Site role ${role.name} deleted.`;
    });
  }
  const list = query.data?.data ?? [];
  return (
    <section aria-labelledby="site-roles-title">
      <h2 id="site-roles-title">Site roles</h2>
      <p className="muted">A site role bundles app roles of any app of the site.</p>
      <Notice text={action.notice} />
      {query.error ? <Failure error={query.error} /> : null}
      {query.data && list.length === 0 && <p>This site has no site role yet.</p>}
      {list.length > 0 && (
        <SiteRolesTable
          roles={list}
          configure={configure}
          onEdit={(role) => {
            setEditing(role.slug);
            setEdited(role.app_roles.map((item) => item.slug));
          }}
          onRemove={remove}
        />
      )}
      {configure &&
        list
          .filter((role) => role.slug === editing)
          .map((role) => (
            <form
              key={role.slug}
              className="card"
              onSubmit={(event) => save(event, role)}
              noValidate
              aria-labelledby="edit-site-role-title"
            >
              <h3 id="edit-site-role-title">App roles of {role.name}</h3>
              <FormError error={action.error} />
              <CheckList
                legend="Bundled app roles (of this app; those of other apps stay)"
                items={appRoles.map((item) => [item.slug, item.name] as const)}
                chosen={edited}
                onChange={setEdited}
              />
              <div className="toolbar">
                <button type="submit" className="primary" disabled={action.busy}>
                  Save site role
                </button>
                <button type="button" onClick={() => setEditing('')}>
                  Cancel
                </button>
              </div>
            </form>
          ))}
      {configure && (
        <form className="card" onSubmit={create} noValidate aria-labelledby="new-site-role-title">
          <h3 id="new-site-role-title">Create a site role</h3>
          <FormError error={action.error} shown={['name', 'role_slugs']} />
          <TextField
            label="Site role name"
            value={name}
            onChange={setName}
            required
            error={action.at('name')}
          />
          {appRoles.length > 0 && (
            <CheckList
              legend="App roles it bundles (of this app)"
              items={appRoles.map((role) => [role.slug, role.name] as const)}
              chosen={bundle}
              onChange={setBundle}
            />
          )}
          <button type="submit" className="primary" disabled={action.busy}>
            Create site role
          </button>
        </form>
      )}
    </section>
  );
}

/** The site's roles with the app roles each bundles; Edit and Delete for who configures the site. */
function SiteRolesTable({
  roles,
  configure,
  onEdit,
  onRemove,
}: {
  roles: SiteRole[];
  configure: boolean;
  onEdit: (role: SiteRole) => void;
  onRemove: (role: SiteRole) => void;
}) {
  return (
    <div className="scroll">
      <table>
        <caption className="sr-only">Site roles</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Slug</th>
            <th scope="col">App roles</th>
            {configure && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>
          {roles.map((role) => (
            <tr key={role.slug}>
              <th scope="row">{role.name}</th>
              <td>{role.slug}</td>
              <td>{role.app_roles.map((item) => item.slug).join(', ')}</td>
              {configure && (
                <td className="actions">
                  <button
                    type="button"
                    onClick={() => onEdit(role)}
                    aria-label={`Edit site role ${role.name}`}
                  >
                    Edit
                  </button>
                  <ConfirmButton
                    label="Delete"
                    what={`site role ${role.name}`}
                    onConfirm={() => onRemove(role)}
                  />
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
