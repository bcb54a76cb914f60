import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { SelectField, TextField } from '../kit/fields';
import {
  AppPicker,
  ConfirmButton,
  Failure,
  FormError,
  Notice,
  type Problem,
  toggle,
  useAction,
  useChosenApp,
} from '../kit/parts';
import type { Place } from '../place';
import { answerOf, clientFor, errorText } from '../queries/client';
import { type Abilities, useMembers } from '../queries/organizations';

/**
 * Access of a site (docs/roles.md): an app's roles as a hierarchy, the site's roles, who holds a role (with
 * expiry), and bulk assignment and revocation for several people at once, in batches with progress.
 */

interface AppRole {
  id: number;
  name: string;
  slug: string;
  description: string;
  parent_role_slug: string | null;
}
interface SiteRole {
  id: number;
  name: string;
  slug: string;
  app_roles: AppRole[];
}
interface Holder {
  username: string;
  email: string;
  first_name: string;
  last_name: string;
  /** When the membership ends; null: never. */
  expires_at: string | null;
}

const enc = encodeURIComponent;
/** Usernames per bulk request: the API takes 100; smaller batches show progress and keep each request short. */
const batchSize = 20;

/** An instant of a `datetime-local` field as the API wants it (RFC 3339, UTC), or null for "never". */
function expiry(value: string): string | null {
  return value ? new Date(value).toISOString() : null;
}

export function AccessScreen({ place, abilities }: { place: Place; abilities?: Abilities }) {
  const site = place.site ?? '';
  const app = useChosenApp(place);
  const appRoles = useQuery({
    queryKey: ['app-roles', site, app],
    enabled: Boolean(app),
    queryFn: () =>
      answerOf(
        clientFor(site).GET('/api/app/{app_slug}/roles', {
          params: { path: { app_slug: app ?? '' }, query: { page_size: 100 } },
        }),
      ),
  });
  const siteRoles = useQuery({
    queryKey: ['site-roles', site],
    queryFn: () => answerOf(clientFor(site).GET('/api/roles/', { params: { query: { page_size: 100 } } })),
  });
  const configure = abilities?.can('configure') ?? false;
  const manage = abilities?.can('manage_users') ?? false;
  const roles: [string, string][] = [
    ...(appRoles.data?.data ?? []).map((role): [string, string] => [role.slug, `${role.name} (app role)`]),
    ...(siteRoles.data?.data ?? []).map((role): [string, string] => [role.slug, `${role.name} (site role)`]),
  ];
  return (
    <>
      <h1>Access</h1>
      <AppPicker place={place} section="access" />
      {!configure && <p className="muted">Read only: defining roles needs the site's manage permission.</p>}
      {app && <AppRoles site={site} app={app} query={appRoles} configure={configure} />}
      <SiteRoles site={site} query={siteRoles} appRoles={appRoles.data?.data ?? []} configure={configure} />
      <Holders site={site} org={place.org ?? ''} roles={roles} manage={manage} />
      {manage ? (
        <Bulk site={site} org={place.org ?? ''} roles={roles} />
      ) : (
        <p className="muted">Read only: assigning roles needs the site's manage-users permission.</p>
      )}
    </>
  );
}

function AppRoles({
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
  const [name, setName] = useState('');
  const [parent, setParent] = useState('');
  const [description, setDescription] = useState('');
  const list = query.data?.data ?? [];
  const refresh = () => queries.invalidateQueries({ queryKey: ['app-roles', site, app] });

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
      await refresh();
      return `Role ${name.trim()} created.`;
    });
    if (done) {
      setName('');
      setDescription('');
    }
  }
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
        <form className="card" onSubmit={create} noValidate aria-labelledby="new-app-role-title">
          <h3 id="new-app-role-title">Create an app role</h3>
          {!moving && <FormError error={action.error} shown={['name', 'parent_role_slug', 'description']} />}
          <TextField
            label="App role name"
            value={name}
            onChange={setName}
            required
            error={action.at('name')}
          />
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
      )}
    </section>
  );
}

function SiteRoles({
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
              {list.map((role) => (
                <tr key={role.slug}>
                  <th scope="row">{role.name}</th>
                  <td>{role.slug}</td>
                  <td>{role.app_roles.map((item) => item.slug).join(', ')}</td>
                  {configure && (
                    <td className="actions">
                      <button
                        type="button"
                        onClick={() => {
                          setEditing(role.slug);
                          setEdited(role.app_roles.map((item) => item.slug));
                        }}
                        aria-label={`Edit site role ${role.name}`}
                      >
                        Edit
                      </button>
                      <ConfirmButton
                        label="Delete"
                        what={`site role ${role.name}`}
                        onConfirm={() => remove(role)}
                      />
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
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
              <fieldset>
                <legend>Bundled app roles (of this app; those of other apps stay)</legend>
                {appRoles.map((item) => (
                  <label className="check" key={item.slug}>
                    <input
                      type="checkbox"
                      checked={edited.includes(item.slug)}
                      onChange={(event) =>
                        setEdited((current) => toggle(current, item.slug, event.target.checked))
                      }
                    />{' '}
                    {item.name}
                  </label>
                ))}
              </fieldset>
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
            <fieldset>
              <legend>App roles it bundles (of this app)</legend>
              {appRoles.map((role) => (
                <label className="check" key={role.slug}>
                  <input
                    type="checkbox"
                    checked={bundle.includes(role.slug)}
                    onChange={(event) =>
                      setBundle((current) => toggle(current, role.slug, event.target.checked))
                    }
                  />{' '}
                  {role.name}
                </label>
              ))}
            </fieldset>
          )}
          <button type="submit" className="primary" disabled={action.busy}>
            Create site role
          </button>
        </form>
      )}
    </section>
  );
}

/** Who holds one role: active holders, and expired ones marked; assign with an expiry date, revoke. */
function Holders({
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
              {holders.data.map((holder) => (
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
                        onClick={() => {
                          setChanging(holder.username);
                          setNewUntil('');
                        }}
                        aria-label={`Change expiry of ${holder.username}`}
                      >
                        Change expiry
                      </button>
                      <button
                        type="button"
                        className="danger"
                        onClick={() => revoke(holder.username)}
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

/** Several roles to several people at once (or taken back), in batches, with progress and failures listed. */
function Bulk({ site, org, roles }: { site: string; org: string; roles: [string, string][] }) {
  const queries = useQueryClient();
  const members = useMembers(org);
  const people = (members.data?.results ?? []).map((member) => member.user.username);
  const [chosenPeople, setChosenPeople] = useState<string[]>([]);
  const [chosenRoles, setChosenRoles] = useState<string[]>([]);
  const [until, setUntil] = useState('');
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null);
  const [failures, setFailures] = useState<string[]>([]);
  const [error, setError] = useState<Problem | null>(null);
  const [notice, setNotice] = useState('');
  const running = progress !== null && progress.done < progress.total;

  async function go(kind: 'assign' | 'revoke') {
    setError(null);
    setFailures([]);
    setNotice('');
    const batches: string[][] = [];
    for (let i = 0; i < chosenPeople.length; i += batchSize)
      batches.push(chosenPeople.slice(i, i + batchSize));
    setProgress({ done: 0, total: chosenPeople.length });
    const failed: string[] = [];
    let done = 0;
    try {
      for (const usernames of batches) {
        const answer =
          kind === 'assign'
            ? await answerOf(
                clientFor(site).POST('/api/assign/roles', {
                  body: { roles: chosenRoles, usernames, ...(until ? { expires_at: expiry(until) } : {}) },
                }),
              )
            : await answerOf(
                clientFor(site).DELETE('/api/revoke/roles', { body: { roles: chosenRoles, usernames } }),
              );
        // Every pair done (`message`), or a partial success naming the failures.
        const outcome: {
          message: string;
          data?: { failures: { username: string; role: string; error: string }[] };
        } = answer;
        for (const failure of outcome.data?.failures ?? [])
          failed.push(`${failure.username}, ${failure.role}: ${failure.error}`);
        done += usernames.length;
        setProgress({ done, total: chosenPeople.length });
      }
      setNotice(
        `${kind === 'assign' ? 'Assigned' : 'Revoked'} ${chosenRoles.length} role${chosenRoles.length === 1 ? '' : 's'} for ${done} ${done === 1 ? 'person' : 'people'}${failed.length ? `; ${failed.length} failed` : ''}.`,
      );
    } catch (failure) {
      setError(errorText(failure));
      setProgress(null);
    } finally {
      setFailures(failed);
      await queries.invalidateQueries({ queryKey: ['holders', site] });
    }
  }

  return (
    <section aria-labelledby="bulk-title" className="card">
      <h2 id="bulk-title">Assign or revoke for several people</h2>
      <FormError error={error} shown={[]} />
      <div className="columns">
        <fieldset>
          <legend>People</legend>
          {people.map((name) => (
            <label className="check" key={name}>
              <input
                type="checkbox"
                checked={chosenPeople.includes(name)}
                onChange={(event) =>
                  setChosenPeople((current) => toggle(current, name, event.target.checked))
                }
              />{' '}
              {name}
            </label>
          ))}
        </fieldset>
        <fieldset>
          <legend>Roles</legend>
          {roles.map(([slug, label]) => (
            <label className="check" key={slug}>
              <input
                type="checkbox"
                checked={chosenRoles.includes(slug)}
                onChange={(event) => setChosenRoles((current) => toggle(current, slug, event.target.checked))}
              />{' '}
              {label}
            </label>
          ))}
        </fieldset>
      </div>
      <TextField
        label="Bulk expiry (optional)"
        value={until}
        onChange={setUntil}
        inputType="datetime-local"
      />
      <div className="toolbar">
        <button
          type="button"
          className="primary"
          disabled={running || chosenPeople.length === 0 || chosenRoles.length === 0}
          onClick={() => go('assign')}
        >
          Assign selected
        </button>
        <button
          type="button"
          className="danger"
          disabled={running || chosenPeople.length === 0 || chosenRoles.length === 0}
          onClick={() => go('revoke')}
        >
          Revoke selected
        </button>
      </div>
      {progress && (
        <div className="field">
          <label htmlFor="bulk-progress">Progress</label>
          <progress id="bulk-progress" max={progress.total} value={progress.done}>
            {progress.done} of {progress.total}
          </progress>
          <span className="status">
            {progress.done} of {progress.total} people done
          </span>
        </div>
      )}
      <Notice text={notice} />
      {failures.length > 0 && (
        <ul className="error" aria-label="Failures">
          {failures.map((failure) => (
            <li key={failure}>{failure}</li>
          ))}
        </ul>
      )}
    </section>
  );
}
