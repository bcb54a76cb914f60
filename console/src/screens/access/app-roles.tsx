import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { SelectField, TextField } from '../../kit/fields';
import { ConfirmButton, Failure, FormError, Notice, useAction } from '../../kit/parts';
import { answerOf, clientFor } from '../../queries/client';
import type { AppRole } from './model';

export function AppRoles({
  site,
  app,
  query,
  configure,
}: {
  site: string;
  app: string;
  query: { data?: { data: AppRole[] }; isLoading: boolean; error: unknown };
  configure: boolean;
}) {
  const queries = useQueryClient();
  const action = useAction();
  const list = query.data?.data ?? [];
  const refresh = () => queries.invalidateQueries({ queryKey: ['app-roles', site, app] });

  const [moving, setMoving] = useState('');
  const [target, setTarget] = useState('');
  async function move(event: FormEvent, role: AppRole) {
    event.preventDefault();
    const done = await action.run(async () => {
      // An empty parent moves the role to the root (the API's PUT).
      await answerOf(
        clientFor(site).PUT('/api/app/{app_slug}/roles/{role_slug}', {
          params: { path: { app_slug: app, role_slug: role.slug } },
          body: { parent_role_slug: target },
        }),
      );
      await refresh();
      return `Role ${role.name} moved ${target ? `under ${target}` : 'to the root'}.`;
    });
    if (done) setMoving('');
  }
  async function remove(role: AppRole) {
    await action.run(async () => {
      const answer = await answerOf(
        clientFor(site).DELETE('/api/app/{app_slug}/roles/{role_slug}', {
          params: { path: { app_slug: app, role_slug: role.slug } },
        }),
      );
      await refresh();
      await queries.invalidateQueries({ queryKey: ['site-roles', site] });
      return answer.detail ?? `Role ${role.name} deleted.`;
    });
  }

  /** One level of the hierarchy: the roles whose parent is `parentSlug`, each with its children below it. */
  const level = (parentSlug: string | null) => {
    const children = list.filter((role) => (role.parent_role_slug ?? null) === parentSlug);
    if (children.length === 0) return null;
    return (
      <ul className={parentSlug ? 'tree' : 'tree root'}>
        {children.map((role) => (
          <li key={role.slug}>
            <span className="node">
              <strong>{role.name}</strong> <span className="muted">{role.slug}</span>
              {role.description ? ` — ${role.description}` : ''}
              {configure && (
                <span className="actions">
                  {' '}
                  <button
                    type="button"
                    onClick={() => {
                      setMoving(role.slug);
                      setTarget(role.parent_role_slug ?? '');
                    }}
                    aria-label={`Move role ${role.name}`}
                  >
                    Move
                  </button>
                  <ConfirmButton label="Delete" what={`role ${role.name}`} onConfirm={() => remove(role)} />
                </span>
              )}
            </span>
            {configure && moving === role.slug && (
              <form className="inline-form" onSubmit={(event) => move(event, role)} noValidate>
                <SelectField
                  label={`New parent of ${role.name}`}
                  value={target}
                  options={[
                    ['', '(none: a root role)'],
                    ...list
                      .filter((other) => other.slug !== role.slug)
                      .map((other): [string, string] => [other.slug, other.name]),
                  ]}
                  onChange={setTarget}
                  error={action.error ? (action.at('parent_role_slug') ?? action.error.message) : undefined}
                />
                <button type="submit" className="primary" disabled={action.busy}>
                  Save parent
                </button>
                <button type="button" onClick={() => setMoving('')}>
                  Cancel
                </button>
              </form>
            )}
            {level(role.slug)}
          </li>
        ))}
      </ul>
    );
  };

  return (
    <section aria-labelledby="app-roles-title">
      <h2 id="app-roles-title">Roles of the app {app}</h2>
      <p className="muted">
        A role includes the rights of the roles below it. Deleting a role moves its children up to its parent.
      </p>
      <Notice text={action.notice} />
      {query.isLoading && <p>Loading…</p>}
      {query.error ? <Failure error={query.error} /> : null}
      {query.data && list.length === 0 && <p>This app has no role yet.</p>}
      <nav aria-label="Role hierarchy">{level(null)}</nav>
      {configure && (
        <CreateAppRole
          site={site}
          app={app}
          list={list}
          action={action}
          showErrors={!moving}
          onDone={refresh}
        />
      )}
    </section>
  );
}

/** "Create an app role": a name, a parent (or none: a root role), a description; the messages in the section's. */
function CreateAppRole({
  site,
  app,
  list,
  action,
  showErrors,
  onDone,
}: {
  site: string;
  app: string;
  list: AppRole[];
  action: ReturnType<typeof useAction>;
  showErrors: boolean;
  onDone: () => Promise<unknown>;
}) {
  const [name, setName] = useState('');
  const [parent, setParent] = useState('');
  const [description, setDescription] = useState('');
  async function create(event: FormEvent) {
    event.preventDefault();
    const done = await action.run(async () => {
      await answerOf(
        clientFor(site).POST('/api/app/{app_slug}/roles', {
          params: { path: { app_slug: app } },
          body: {
            name: name.trim(),
            ...(description.trim() ? { description: description.trim() } : {}),
            ...(parent ? { parent_role_slug: parent } : {}),
          },
        }),
      );
      await onDone();
      return `Role ${name.trim()} created.`;
    });
    if (done) {
      setName('');
      setDescription('');
    }
  }
  return (
    <form className="card" onSubmit={create} noValidate aria-labelledby="new-app-role-title">
      <h3 id="new-app-role-title">Create an app role</h3>
      {showErrors && <FormError error={action.error} shown={['name', 'parent_role_slug', 'description']} />}
      <TextField label="App role name" value={name} onChange={setName} required error={action.at('name')} />
      <SelectField
        label="Parent role"
        value={parent}
        options={[
          ['', '(none: a root role)'],
          ...list.map((role): [string, string] => [role.slug, role.name]),
        ]}
        onChange={setParent}
        error={action.at('parent_role_slug')}
      />
      <TextField
        label="Description"
        value={description}
        onChange={setDescription}
        error={action.at('description')}
      />
      <button type="submit" className="primary" disabled={action.busy}>
        Create role
      </button>
    </form>
  );
}
